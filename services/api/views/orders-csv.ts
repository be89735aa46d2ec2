/**
 * GET /v1/orders?format=csv: one column per Order field in contract order, `activation.*` and `failure.*`
 * flattened, `delegate_hashes` space-separated, and a text cell that a spreadsheet would run as a formula
 * (starting with =, +, -, @, tab or carriage return) prefixed with a quote. Pure.
 */
type Row = Record<string, unknown>;

/** Header names: the Order's keys with nested objects flattened as `parent.child`. */
export const orderCsvColumns = [
  'id', 'client_order_id', 'account_id', 'batch_id', 'subscription_id', 'resource', 'amount', 'delivered_amount', 'partial', 'tier',
  'duration_seconds', 'receiver', 'source', 'status', 'confirm_status', 'price_sun_per_unit', 'pay_amount_sun', 'activate_amount_sun',
  'total_amount_sun', 'refunded_amount_sun', 'delegate_hash', 'delegate_hashes', 'delegated_at', 'reclaim_hash', 'reclaimed_at', 'expires_at',
  'activation.performed', 'activation.hash', 'activation.amount_sun', 'memo', 'created_at', 'updated_at',
  'failure.code', 'failure.slug', 'failure.message', 'failure.at',
] as const;

function valueAt(order: Row, column: string): unknown {
  const [head, tail] = column.split('.');
  const value = order[head];
  if (tail === undefined) return value;
  return value === null || value === undefined ? null : (value as Row)[tail];
}

/**
 * Text a spreadsheet may take for a formula: the ASCII starters, their full-width forms (＝＋－＠, which
 * some spreadsheets fold to ASCII), tab, CR, and a leading space (trimmed before the formula is read).
 */
const FORMULA_START = /^[=+\-@\t\r \uFF1D\uFF0B\uFF0D\uFF20]/;

/** One CSV cell: formula-injection prefix on text, RFC 4180 quoting. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = Array.isArray(value) ? value.join(' ') : String(value);
  if ((typeof value === 'string' || Array.isArray(value)) && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) || text.startsWith(' ') || text.endsWith(' ') ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvHeader(): string {
  return orderCsvColumns.join(',') + '\r\n';
}

export function csvLine(order: Row): string {
  return orderCsvColumns.map((c) => csvCell(valueAt(order, c))).join(',') + '\r\n';
}
