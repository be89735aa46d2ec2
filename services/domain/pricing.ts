/**
 * Prices and quotes (contract.md section 3): price rows per network from configuration, tier rules
 * (sold, switched off, retired), the charge of one order and the checks a quote must pass. Pure.
 */

export const orderResources = ['energy', 'bandwidth', 'activation'] as const;
export type OrderResource = (typeof orderResources)[number];
export type DelegatedResource = Exclude<OrderResource, 'activation'>;

/** Every tier the enum knows; `15m`, `3d`, `30d` are retired (old orders still parse). */
export const allTiers = ['5m', '15m', '1h', '1d', '3d', '30d'] as const;
export type Tier = (typeof allTiers)[number];
export const retiredTiers: readonly Tier[] = ['15m', '3d', '30d'];

export const tierSeconds: Record<Tier, number> = { '5m': 300, '15m': 900, '1h': 3600, '1d': 86_400, '3d': 259_200, '30d': 2_592_000 };

export interface PriceRow {
  resource: DelegatedResource;
  tier: Tier;
  duration_seconds: number;
  price_sun_per_unit: bigint;
  min_amount: number;
  max_amount: number;
  available: boolean;
}

export interface PriceTable {
  network: 'mainnet' | 'nile';
  rows: PriceRow[];
  activationFeeSun: bigint;
  /** Plan subscriptions (contract.md section 9): a row per resource, `tier: plan`, SUN per unit per day. */
  plans?: PlanRow[];
}

export const PLAN_SECONDS = 86_400;

export interface PlanRow {
  resource: DelegatedResource;
  price_sun_per_unit: bigint;
  min_amount: number;
  max_amount: number;
  available: boolean;
}

type RowInput = Omit<PriceRow, 'duration_seconds' | 'price_sun_per_unit'> & { price_sun_per_unit: bigint | number };

const row = (resource: DelegatedResource, tier: Tier, price: number, min: number, max: number, available = true): RowInput => ({
  resource, tier, price_sun_per_unit: price, min_amount: min, max_amount: max, available,
});

/** Defaults per network; ORDER_PRICES (a JSON array of rows) replaces them. */
const defaults: Record<'mainnet' | 'nile', { rows: RowInput[]; activationFeeSun: bigint }> = {
  mainnet: {
    rows: [
      row('energy', '5m', 40, 10_000, 10_000_000), row('energy', '1h', 60, 10_000, 10_000_000), row('energy', '1d', 90, 10_000, 10_000_000, false),
      row('bandwidth', '5m', 400, 300, 1_000_000), row('bandwidth', '1h', 600, 300, 1_000_000), row('bandwidth', '1d', 900, 300, 1_000_000, false),
    ],
    activationFeeSun: 1_500_000n,
  },
  nile: {
    rows: [
      row('energy', '5m', 40, 10_000, 10_000_000), row('energy', '1h', 60, 10_000, 10_000_000), row('energy', '1d', 90, 10_000, 10_000_000, false),
      row('bandwidth', '5m', 400, 300, 1_000_000), row('bandwidth', '1h', 600, 300, 1_000_000), row('bandwidth', '1d', 900, 300, 1_000_000, false),
    ],
    activationFeeSun: 1_500_000n,
  },
};

/** The price table of a network: configured rows (ORDER_PRICES, parsed by platform/config.ts) (retired tiers dropped, never listed) or the defaults. */
export function priceTable(network: 'mainnet' | 'nile', configured?: unknown, activationFeeSun?: bigint): PriceTable {
  if (configured !== undefined && !Array.isArray(configured)) throw new Error('ORDER_PRICES: a JSON array of price rows');
  const all = configured !== undefined ? (configured as RowInput[]) : defaults[network].rows;
  // ORDER_PRICES may carry `plan` rows; without one, a resource's plan is priced as its 1d row, always sold.
  const planInputs = all.filter((r) => (r.tier as string) === 'plan');
  const inputs = all.filter((r) => (r.tier as string) !== 'plan');
  const plans = (['energy', 'bandwidth'] as const).flatMap((resource): PlanRow[] => {
    const r = planInputs.find((x) => x.resource === resource) ?? inputs.find((x) => x.resource === resource && x.tier === '1d');
    return r ? [{ resource, price_sun_per_unit: BigInt(r.price_sun_per_unit), min_amount: r.min_amount, max_amount: r.max_amount, available: planInputs.includes(r) ? r.available : true }] : [];
  });
  const rows = inputs
    .filter((r) => !retiredTiers.includes(r.tier))
    .map((r) => {
      if (!(allTiers as readonly string[]).includes(r.tier) || !['energy', 'bandwidth'].includes(r.resource)) {
        throw new Error(`ORDER_PRICES: bad row ${JSON.stringify(r)}`);
      }
      return { ...r, duration_seconds: tierSeconds[r.tier], price_sun_per_unit: BigInt(r.price_sun_per_unit) };
    });
  return { network, rows, activationFeeSun: activationFeeSun ?? defaults[network].activationFeeSun, plans };
}

export type PriceCheck =
  | { ok: true; row: PriceRow }
  | { ok: false; slug: 'tier_unavailable' | 'amount_out_of_range' | 'invalid_request'; message: string; details?: Record<string, unknown> };

/**
 * The row an order of `resource`/`tier`/`amount` is priced on: 2003 for a switched-off or retired tier,
 * 4002 outside the row's bounds or the account's max_order_energy.
 */
export function priceFor(table: PriceTable, resource: DelegatedResource, tier: Tier, amount: number, maxOrderEnergy: number): PriceCheck {
  const found = table.rows.find((r) => r.resource === resource && r.tier === tier);
  if (!found || !found.available) return { ok: false, slug: 'tier_unavailable', message: `The tier ${tier} is not available for ${resource}.`, details: { tier } };
  if (amount < found.min_amount || amount > found.max_amount || (resource === 'energy' && amount > maxOrderEnergy)) {
    const max = resource === 'energy' ? Math.min(found.max_amount, maxOrderEnergy) : found.max_amount;
    return { ok: false, slug: 'amount_out_of_range', message: `The amount must be between ${found.min_amount} and ${max}.`, details: { min_amount: found.min_amount, max_amount: max } };
  }
  return { ok: true, row: found };
}

export interface Charge {
  priceSunPerUnit: bigint | null;
  paySun: bigint;
  activateSun: bigint;
  totalSun: bigint;
}

/** pay = amount x unit price; activation fee only when the receiver is inactive. */
export function chargeFor(priceSunPerUnit: bigint | null, amount: number | null, receiverActive: boolean, activationFeeSun: bigint): Charge {
  const paySun = priceSunPerUnit === null || amount === null ? 0n : priceSunPerUnit * BigInt(amount);
  const activateSun = receiverActive ? 0n : activationFeeSun;
  return { priceSunPerUnit, paySun, activateSun, totalSun: paySun + activateSun };
}

export const QUOTE_TTL_MS = 60_000;

export interface QuoteFields {
  resource: OrderResource;
  amount: number | null;
  tier: Tier | null;
  receiver: string;
}

/** 3011 when an order's body differs from its quote in any priced field. */
export function quoteMatches(quote: QuoteFields, order: QuoteFields): boolean {
  return quote.resource === order.resource && quote.amount === order.amount && quote.tier === order.tier && quote.receiver === order.receiver;
}

export function priceRowJson(r: PriceRow): Record<string, unknown> {
  return {
    resource: r.resource, tier: r.tier, duration_seconds: r.duration_seconds, price_sun_per_unit: r.price_sun_per_unit,
    min_amount: r.min_amount, max_amount: r.max_amount, available: r.available,
  };
}

/** The plan rows as GET /v1/prices lists them (after the tier rows). */
export function planRowJson(r: PlanRow): Record<string, unknown> {
  return {
    resource: r.resource, tier: 'plan', duration_seconds: PLAN_SECONDS, price_sun_per_unit: r.price_sun_per_unit,
    min_amount: r.min_amount, max_amount: r.max_amount, available: r.available,
  };
}
