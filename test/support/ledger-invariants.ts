/** Ledger invariants every test checks after it ran: journals balance, balances equal their lines. */
import type { Pool } from '../../services/platform/db/pool';

export async function assertLedgerInvariants(pool: Pool): Promise<void> {
  const unbalanced = await pool.query(
    'SELECT journal_id, currency, sum(amount) AS s FROM journal_lines GROUP BY journal_id, currency HAVING sum(amount) <> 0',
  );
  expect(unbalanced.rows).toEqual([]);
  const mismatched = await pool.query(`
    SELECT a.id, a.balance_sun, coalesce(sum(l.amount), 0) AS lines
    FROM accounts a LEFT JOIN journal_lines l ON l.ledger_account = 'customer:' || a.id || ':trx' AND l.currency = 'TRX'
    GROUP BY a.id, a.balance_sun HAVING a.balance_sun <> coalesce(sum(l.amount), 0)`);
  expect(mismatched.rows).toEqual([]);
  const negative = await pool.query('SELECT id FROM accounts WHERE balance_sun < 0 OR balance_sun < reserved_sun');
  expect(negative.rows).toEqual([]);
}
