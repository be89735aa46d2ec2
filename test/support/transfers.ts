/**
 * Token-transfer senders for the estimate and for_transfer tests: a fresh wallet funded with TRX and USDT by
 * the devnet's faucet, optionally staking TRX for its own energy, and a transaction's solidified info.
 */
import { TronWeb } from 'tronweb';
import type { Devnet } from '../devnet/start-devnet';
import { eventually } from '../devnet/start-devnet';
import { newWallet, type Wallet } from './identity';

/** A transaction's info once its block is solidified. */
export function landed(devnet: Pick<Devnet, 'post'>, txid: string): Promise<any> {
  return eventually(async () => {
    const i: any = await devnet.post('/walletsolidity/gettransactioninfobyid', { value: txid });
    return i.id ? i : undefined;
  }, 30_000);
}

/** A new sender with 20,000 TRX and 100 USDT, and `energyStakeSun` of it frozen for its own energy. */
export async function fundedSender(devnet: Pick<Devnet, 'post' | 'url'>, energyStakeSun = 0): Promise<Wallet> {
  const w = await newWallet();
  await Promise.all((await devnet.post('/admin/faucet', { to: w.address, trx_sun: 20_000_000_000, usdt: 100_000_000 })).txids.map((t: string) => landed(devnet, t)));
  if (energyStakeSun > 0) {
    const tw = new TronWeb({ fullHost: devnet.url, privateKey: w.privateKey });
    const signed = await tw.trx.sign(await tw.transactionBuilder.freezeBalanceV2(energyStakeSun, 'ENERGY', w.address));
    await tw.trx.sendRawTransaction(signed);
    await landed(devnet, signed.txID);
  }
  return w;
}
