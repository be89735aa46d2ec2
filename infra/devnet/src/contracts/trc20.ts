import type { HexAddress } from '../crypto/address';
import type { StateView } from '../state/accounts';
import { addressTopic, decode, encode, eventTopic, tronAddressOfWord, viewFn, writeFn } from './abi';
import { NativeContract, ok, revert } from './contract';

/** keccak('Transfer(address,address,uint256)'), topic 0 of every TRC-20 Transfer log. */
export const TRANSFER_TOPIC = eventTopic('Transfer(address,address,uint256)');

/**
 * Energy of a USDT transfer before dynamic energy: writing a balance slot that was zero costs
 * 20 000 more gas-equivalent than updating one (the figures TronScan showed for USDT).
 */
export const TRANSFER_ENERGY_EXISTING_HOLDER = 14_650n;
export const TRANSFER_ENERGY_NEW_HOLDER = 29_650n;
const READ_ENERGY = 500n;
/** The revert reason of a transfer above the sender's balance (OpenZeppelin's ERC20 text). */
export const TRANSFER_EXCEEDS_BALANCE = 'ERC20: transfer amount exceeds balance';

export interface TokenMeta {
  readonly name: string;
  readonly symbol: string;
  readonly decimals: number;
}

/** A TRC-20 token (balances kept in the chain state under the token's address). */
export function trc20(address: HexAddress, origin: HexAddress, meta: TokenMeta): NativeContract {
  const uint = (v: bigint) => encode(['uint256'], [v]);
  return new NativeContract(address, meta.name.replace(/\s+/g, ''), origin)
    .fn(viewFn('name', [], [{ type: 'string' }]), () => ok(encode(['string'], [meta.name]), READ_ENERGY))
    .fn(viewFn('symbol', [], [{ type: 'string' }]), () => ok(encode(['string'], [meta.symbol]), READ_ENERGY))
    .fn(viewFn('decimals', [], [{ type: 'uint8' }]), () => ok(encode(['uint8'], [meta.decimals]), READ_ENERGY))
    .fn(viewFn('totalSupply', [], [{ type: 'uint256' }]), ({ view }) => ok(uint(view.prop<bigint>('supply:' + address) ?? 0n), READ_ENERGY))
    .fn(viewFn('balanceOf', [{ name: 'who', type: 'address' }], [{ type: 'uint256' }]), ({ view, args }) => {
      const [who] = decode(['address'], args);
      return ok(uint(view.tokenBalance(address, tronAddressOfWord(who))), READ_ENERGY);
    })
    .fn(writeFn('transfer', [{ name: '_to', type: 'address' }, { name: '_value', type: 'uint256' }], [{ type: 'bool' }]), ({ view, caller, args }) => {
      const [toWord, rawValue] = decode(['address', 'uint256'], args);
      const to = tronAddressOfWord(toWord);
      const value = BigInt(rawValue as bigint);
      const fromBalance = view.tokenBalance(address, caller);
      if (value > fromBalance) return revert(TRANSFER_EXCEEDS_BALANCE);
      const toBalance = to === caller ? fromBalance - value : view.tokenBalance(address, to);
      const energy = toBalance === 0n && value > 0n ? TRANSFER_ENERGY_NEW_HOLDER : TRANSFER_ENERGY_EXISTING_HOLDER;
      view.putTokenBalance(address, caller, fromBalance - value);
      view.putTokenBalance(address, to, toBalance + value);
      const log = { address: address.slice(2), topics: [TRANSFER_TOPIC, addressTopic(caller), addressTopic(to)], data: uint(value).toString('hex') };
      return ok(encode(['bool'], [true]), energy, [log]);
    })
    .event({
      name: 'Transfer',
      type: 'Event',
      anonymous: false,
      inputs: [
        { indexed: true, name: 'from', type: 'address' },
        { indexed: true, name: 'to', type: 'address' },
        { name: 'value', type: 'uint256' },
      ],
    });
}

/** Puts `amount` base units in `holder`'s balance and the total supply (genesis and admin only). */
export function mint(view: StateView, token: HexAddress, holder: HexAddress, amount: bigint): void {
  view.putTokenBalance(token, holder, view.tokenBalance(token, holder) + amount);
  view.putProp('supply:' + token, (view.prop<bigint>('supply:' + token) ?? 0n) + amount);
}
