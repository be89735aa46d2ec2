/**
 * The receivers of a batch as the user pastes them or uploads a CSV: one receiver per line, optionally
 * followed by amount, tier and resource (`T…,65000,1h`). A first line naming columns (`receiver,amount,…`)
 * picks the columns by name instead. Separators: comma, semicolon, tab or spaces. Pure: no DOM, tested
 * in test/unit/web-batch-input.test.ts. The API checks everything again (checksums, tiers, limits).
 */
export interface BatchLine {
  receiver: string;
  amount?: number;
  tier?: string;
  resource?: string;
}

export interface ParsedReceivers {
  items: BatchLine[];
  /** 1-based line numbers with what is wrong there; nothing is sent while any is listed. */
  errors: { line: number; message: string }[];
}

const ADDRESS = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;
const COLUMNS = ['receiver', 'amount', 'tier', 'resource'] as const;
type Column = (typeof COLUMNS)[number];

/** A line's cells: split on commas, semicolons or tabs when it has any (empty cells keep their place), else on spaces. */
function cells(line: string): string[] {
  const parts = /[,;\t]/.test(line) ? line.split(/[,;\t]/) : line.split(/\s+/);
  return parts.map((c) => c.trim().replace(/^"(.*)"$/, '$1'));
}

export function parseReceivers(text: string, maxReceivers: number): ParsedReceivers {
  const items: BatchLine[] = [];
  const errors: ParsedReceivers['errors'] = [];
  const seen = new Map<string, number>();
  let order: Column[] = [...COLUMNS];
  let first = true;
  text.split(/\r?\n/).forEach((raw, k) => {
    const line = raw.trim();
    const n = k + 1;
    if (line === '' || line.startsWith('#')) return;
    const row = cells(line);
    if (first) {
      first = false;
      const named = row.map((c) => c.toLowerCase());
      if (named.includes('receiver')) {
        const unknown = named.filter((c) => !(COLUMNS as readonly string[]).includes(c));
        if (unknown.length) errors.push({ line: n, message: `Unknown column ${unknown.join(', ')}; known: ${COLUMNS.join(', ')}.` });
        order = named as Column[];
        return;
      }
    }
    const value = (col: Column) => {
      const i = order.indexOf(col);
      return i >= 0 && row[i] !== undefined && row[i] !== '' ? row[i] : undefined;
    };
    const receiver = value('receiver');
    if (!receiver || !ADDRESS.test(receiver)) {
      errors.push({ line: n, message: `Not a TRON address: ${receiver ?? '(empty)'}` });
      return;
    }
    if (seen.has(receiver)) {
      errors.push({ line: n, message: `Same receiver as line ${seen.get(receiver)}.` });
      return;
    }
    seen.set(receiver, n);
    const item: BatchLine = { receiver };
    const amount = value('amount');
    if (amount !== undefined) {
      const a = Number(amount.replace(/_/g, ''));
      if (!Number.isSafeInteger(a) || a <= 0) {
        errors.push({ line: n, message: `Amount must be a whole number above 0: ${amount}` });
        return;
      }
      item.amount = a;
    }
    const tier = value('tier');
    if (tier !== undefined) item.tier = tier;
    const resource = value('resource');
    if (resource !== undefined) item.resource = resource;
    items.push(item);
  });
  if (items.length > maxReceivers) errors.push({ line: 0, message: `${items.length} receivers; at most ${maxReceivers} per batch.` });
  return { items, errors };
}
