/**
 * The part of a GET /v1/account/stats answer that the rollups give (the plan's whole days, whole months and
 * receivers, already folded to local days and weekday x hour), kept in memory per account and plan under the
 * account's projection version (stats_account_versions, moved by every projection transaction that touches
 * the account). A request holding an entry reads only the stored version and the partial days at the range's
 * ends (one small statement, services/stats/store.ts); when the version moved it reads everything, as a
 * request without an entry does, and keeps the new whole part. Bounded: least recently used entries go
 * first, and an entry older than CACHE_MAX_AGE_MS is read again whatever its version.
 */
import type { DaySums, ReceiverSums, StatsPlan, WeekdayHourCount } from './account-stats';

export const CACHE_ENTRIES = 128;
export const CACHE_MAX_AGE_MS = 5 * 60_000;
/**
 * Most receivers of the whole part kept per entry: with more, the entry keeps no receivers and the read
 * ranks them in SQL (top receivers of a sum over parts cannot be ranked from a truncated list).
 */
export const CACHED_RECEIVERS = 1_000;

export interface WholePart {
  version: bigint;
  days: DaySums[];
  weekdayHours: WeekdayHourCount[];
  /** Every receiver of the whole days and months, or null when there were more than CACHED_RECEIVERS. */
  receivers: ReceiverSums[] | null;
}

/** What a plan's whole part depends on: the account, the offset and the spans the rollups answer. */
export function wholeKey(accountId: string, plan: StatsPlan, offsetMinutes: number): string {
  return [
    accountId, offsetMinutes, plan.days, plan.split?.quarter, plan.gridMonths, plan.gridDays, plan.receiverMonths, plan.receiverDays,
  ].map((part) => JSON.stringify(part ?? null)).join('|');
}

export class WholePartCache {
  hits = 0;
  misses = 0;
  private entries = new Map<string, { at: number; part: WholePart }>();

  constructor(private readonly now: () => number = Date.now, private readonly size = CACHE_ENTRIES, private readonly maxAgeMs = CACHE_MAX_AGE_MS) {}

  /** The entry to offer the read (its version is checked by the statement), if young enough. */
  get(key: string): WholePart | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (this.now() - entry.at > this.maxAgeMs) return undefined;
    this.entries.set(key, entry);
    return entry.part;
  }

  set(key: string, part: WholePart): void {
    this.entries.delete(key);
    this.entries.set(key, { at: this.now(), part });
    while (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** Counts whether the statement found the offered entry current. */
  record(hit: boolean): void {
    if (hit) this.hits += 1;
    else this.misses += 1;
  }
}

const caches = new WeakMap<object, WholePartCache>();

/** One cache per database pool (each pool is one database: tests run several in a process). */
export function wholePartCacheFor(pool: object): WholePartCache {
  let cache = caches.get(pool);
  if (!cache) caches.set(pool, (cache = new WholePartCache()));
  return cache;
}
