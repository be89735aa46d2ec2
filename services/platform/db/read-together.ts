/**
 * Several statements that return rows, sent as ONE statement (one round trip instead of one each): each becomes
 * a CTE, and their rows are laid side by side (row i of every part in result row i, FULL JOIN on the row
 * number), with a marker column before each part's columns so the answer splits back into one row list per
 * part. The columns keep their types (every type parser applies as for the statements alone).
 *
 * The parts run on one snapshot and none sees another's writes: a part may be a data-modifying statement with
 * RETURNING (e.g. a claim) only when no other part reads what it writes.
 */
import { shiftPlaceholders, type Statement } from './bulk';
import type { PoolClient } from './pool';

type Row = Record<string, any>;

export async function readTogether(client: Pick<PoolClient, 'query'>, parts: Statement[]): Promise<Row[][]> {
  if (parts.length === 0) return [];
  if (parts.length === 1) return [(await client.query(parts[0].sql, parts[0].params)).rows];
  const params: unknown[] = [];
  const ctes = parts.map((part, i) => {
    const sql = shiftPlaceholders(part.sql, params.length);
    params.push(...part.params);
    return `p${i} AS (${sql})`;
  });
  const sides = parts.map((_, i) => `(SELECT row_number() OVER () AS "#row", true AS "#${i}", p${i}.* FROM p${i}) AS x${i}`);
  const sql = `WITH ${ctes.join(', ')} SELECT * FROM ${sides[0]}${sides.slice(1).map((s) => ` FULL JOIN ${s} USING ("#row")`).join('')}`;
  const result = await client.query({ text: sql, values: params, rowMode: 'array' });
  // Column ranges of each part: from just after its marker to just before the next marker.
  const names = result.fields.map((f) => f.name);
  const starts = parts.map((_, i) => names.indexOf(`#${i}`));
  const out: Row[][] = parts.map(() => []);
  for (const values of result.rows as unknown[][]) {
    parts.forEach((_, i) => {
      const from = starts[i];
      if (values[from] !== true) return;
      const to = i + 1 < parts.length ? starts[i + 1] : names.length;
      const row: Row = {};
      for (let c = from + 1; c < to; c++) row[names[c]] = values[c];
      out[i].push(row);
    });
  }
  return out;
}
