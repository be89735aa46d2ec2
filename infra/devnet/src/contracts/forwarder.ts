import type { HexAddress } from '../crypto/address';
import { decode, encode, evmAddress, payableFn, selector, tronAddressOfWord } from './abi';
import { NativeContract, ok, revert, type CallResult } from './contract';

const TRANSFER = selector('transfer(address,uint256)');
/** Loop and bookkeeping energy of one payout line, on top of what its calls cost. */
const LINE_ENERGY = 2_000n;
const BASE_ENERGY = 5_000n;

/**
 * A batch-payout contract like those exchanges and multisig wallets pay out through:
 * `multiSend(token, recipients, tokenAmounts, trxAmounts)` pays each recipient its token amount by
 * calling `token.transfer(recipient, amount)` (so the token's Transfer log names this contract as the
 * sender) and its TRX amount by a value call; both come from this contract's balances (TRX sent with
 * the call included: the function is payable). Any payout failing reverts the whole call.
 */
export function forwarder(address: HexAddress, origin: HexAddress): NativeContract {
  const inputs = [
    { name: 'token', type: 'address' },
    { name: 'recipients', type: 'address[]' },
    { name: 'tokenAmounts', type: 'uint256[]' },
    { name: 'trxAmounts', type: 'uint256[]' },
  ];
  return new NativeContract(address, 'BatchPayout', origin)
    .fn(payableFn('multiSend', inputs, [{ type: 'bool' }]), (env) => {
      const [tokenWord, recipientWords, tokenAmounts, trxAmounts] = decode(['address', 'address[]', 'uint256[]', 'uint256[]'], env.args) as [string, string[], bigint[], bigint[]];
      if (recipientWords.length !== tokenAmounts.length || recipientWords.length !== trxAmounts.length) return revert();
      const token = tronAddressOfWord(tokenWord);
      let energy = BASE_ENERGY;
      const logs: CallResult['logs'] = [];
      for (let i = 0; i < recipientWords.length; i++) {
        const to = tronAddressOfWord(recipientWords[i]);
        energy += LINE_ENERGY;
        if (BigInt(tokenAmounts[i]) > 0n) {
          const data = Buffer.concat([Buffer.from(TRANSFER, 'hex'), encode(['address', 'uint256'], [evmAddress(to), BigInt(tokenAmounts[i])])]);
          const r = env.call(token, data, 0n);
          energy += r.energy;
          if (!r.ok) return { ...revert(), energy };
          logs.push(...r.logs);
        }
        if (BigInt(trxAmounts[i]) > 0n) {
          const r = env.call(to, Buffer.alloc(0), BigInt(trxAmounts[i]));
          energy += r.energy;
          if (!r.ok) return { ...revert(), energy };
          logs.push(...r.logs);
        }
      }
      return ok(encode(['bool'], [true]), energy, logs);
    });
}
