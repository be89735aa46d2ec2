/**
 * The USDT→TRX rate: USDT_FIXED_RATE (fixed_env) or the DEX v3 pool's slot0() read on the solidified
 * chain (dex_v3, the source naming the block it was read at). Cached `ttlMs` (60 s for rate_now).
 * `null` when no rate is available: an unreadable chain or pool, or no fixed rate configured.
 *
 * With `twapBlocks` above 1 (the deposit watcher: USDT_TWAP_BLOCKS) each read keeps the pool price of the
 * solidified block it saw, and the rate is their block-weighted mean over that many blocks
 * (domain/deposit-rate.ts); null until the samples cover the window, as after a start. The samples live
 * in this process: a restarted watcher waits out one window before it credits USDT again.
 */
import { tronAddressToHex } from '../chain/address';
import { sunPerUsdtFromDecimal, sunPerUsdtFromSqrtPrice, trxPerUsdtDecimal } from '../domain/deposits';
import type { RateNow, RateSource } from '../domain/deposits';
import type { ChainReader } from '../chain/reads';
import type { Clock } from '../platform/clock';
import type { Config } from '../platform/config';
import { toIso } from '../platform/clock';
import { logger } from '../platform/logger';
import { blockWeightedRate, keptSamples, type RateSample } from '../domain/deposit-rate';

export interface UsdtRate {
  /** SUN per 1 USDT before the spread. */
  rateSun: bigint;
  kind: 'fixed_env' | 'dex_v3';
  /** As recorded on the ledger: `fixed_env` or `dex_v3@<block>`. */
  source: string;
  at: number;
}

export const RATE_CACHE_MS = 60_000;

type RateConfig = Pick<Config, 'USDT_RATE_SOURCE' | 'USDT_FIXED_RATE' | 'DEX_POOL_ADDRESS' | 'USDT_CONTRACT'>;

export class UsdtRateSource {
  private cached: { rate: UsdtRate | null; until: number } | undefined;
  private usdtIsToken0: boolean | undefined;
  private samples: RateSample[] = [];

  constructor(
    private readonly cfg: RateConfig, private readonly reader: ChainReader, private readonly clock: Clock, private readonly ttlMs = RATE_CACHE_MS,
    private readonly twapBlocks = 1,
  ) {}

  async current(): Promise<UsdtRate | null> {
    const now = this.clock.now();
    if (this.cached && now < this.cached.until) return this.cached.rate;
    const rate = await this.read(now);
    this.cached = { rate, until: now + this.ttlMs };
    return rate;
  }

  /** rate_now of the deposit-address reads. */
  readonly rateNow: RateSource = async (): Promise<RateNow | null> => {
    const rate = await this.current();
    return rate ? { trx_per_usdt: trxPerUsdtDecimal(rate.rateSun), source: rate.kind, at: toIso(rate.at) } : null;
  };

  private async read(now: number): Promise<UsdtRate | null> {
    if (this.cfg.USDT_RATE_SOURCE === 'fixed_env') {
      if (!this.cfg.USDT_FIXED_RATE) return null;
      const rateSun = sunPerUsdtFromDecimal(this.cfg.USDT_FIXED_RATE);
      return rateSun > 0n ? { rateSun, kind: 'fixed_env', source: 'fixed_env', at: now } : null;
    }
    const pool = this.cfg.DEX_POOL_ADDRESS;
    if (!pool || !this.cfg.USDT_CONTRACT) return null;
    try {
      if (this.usdtIsToken0 === undefined) {
        const token0 = await this.reader.triggerConstant(pool, 'token0()', '', { view: 'solid' });
        if (!token0.ok) return null;
        this.usdtIsToken0 = token0.result.slice(-40).toLowerCase() === tronAddressToHex(this.cfg.USDT_CONTRACT).slice(2).toLowerCase();
      }
      const block = await this.reader.solidifiedBlockNumber();
      const slot0 = await this.reader.triggerConstant(pool, 'slot0()', '', { view: 'solid' });
      if (!slot0.ok || slot0.result.length < 64) return null;
      const spot = sunPerUsdtFromSqrtPrice(BigInt(`0x${slot0.result.slice(0, 64)}`), this.usdtIsToken0);
      if (!spot || spot <= 0n) return null;
      if (this.twapBlocks === 1) return { rateSun: spot, kind: 'dex_v3', source: `dex_v3@${block}`, at: now };
      const last = this.samples[this.samples.length - 1];
      if (last && last.block === block) last.rateSun = spot;
      else if (!last || last.block < block) this.samples.push({ block, rateSun: spot });
      this.samples = keptSamples(this.samples, block, this.twapBlocks);
      const rateSun = blockWeightedRate(this.samples, block, this.twapBlocks);
      return rateSun && rateSun > 0n ? { rateSun, kind: 'dex_v3', source: `dex_v3_twap${this.twapBlocks}@${block}`, at: now } : null;
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'USDT rate unavailable');
      return null;
    }
  }
}
