/**
 * Support action: credit a deposit that was held (below min, above max, TRX residual, retired address
 * past its window) or still waits for a rate. USDT is credited at the rate in force now, minus the spread.
 */
import type { CommandResult } from '../domain/command-result';
import { ChainReader } from '../chain/reads';
import { UsdtRateSource } from '../deposits/rate';
import type { CommandBus } from '../platform/command-bus';
import type { Runtime } from '../chain/clients';

export async function creditHeldDeposit(rt: Runtime, bus: CommandBus, depositId: string, memo: string | null): Promise<CommandResult | null> {
  const { rows } = await rt.pool.query('SELECT account_id, asset FROM deposits WHERE deposit_id = $1', [depositId]);
  if (rows.length === 0) return null;
  const rate = rows[0].asset === 'USDT' ? await new UsdtRateSource(rt.cfg, ChainReader.fromConfig(rt.cfg), rt.clock, 0).current() : null;
  return bus.submit({
    type: 'deposit.release', accountId: rows[0].account_id, depositId, reason: 'support',
    rateSun: rate?.rateSun ?? null, rateSource: rate?.source ?? null, spreadBps: rt.cfg.USDT_SPREAD_BPS, memo,
  });
}
