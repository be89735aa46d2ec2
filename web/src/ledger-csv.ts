/**
 * The ledger as CSV, built in the page from the entries it pages through (GET /v1/ledger has no CSV form).
 * Cells follow the orders export's rules (services/api/views/orders-csv.ts: RFC 4180 quoting, a quote
 * before text a spreadsheet would run as a formula). The amount columns sum to the balance. Pure.
 */
import { csvCell } from '../../services/api/views/orders-csv';

export const ledgerCsvColumns = [
  'id', 'created_at', 'kind', 'amount_sun', 'amount_usdt', 'order_id',
  'deposit.asset', 'deposit.status', 'deposit.txid', 'deposit.sender', 'deposit.block_number', 'deposit.usdt_amount', 'deposit.rate',
] as const;

function valueAt(entry: Record<string, any>, column: string): unknown {
  const [head, tail] = column.split('.');
  return tail === undefined ? entry[head] : entry[head]?.[tail];
}

export function ledgerCsv(entries: Record<string, any>[]): string {
  const lines = entries.map((e) => ledgerCsvColumns.map((c) => csvCell(valueAt(e, c))).join(','));
  return [ledgerCsvColumns.join(','), ...lines].join('\r\n') + '\r\n';
}
