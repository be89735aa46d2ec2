/** The ledger export the dashboard builds in the browser: one row per journal, flattened deposits, safe cells. */
import { ledgerCsv, ledgerCsvColumns } from '../../web/src/ledger-csv';

test('header, flattened deposit fields, empty cells for null, CRLF lines', () => {
  const csv = ledgerCsv([
    { id: 'jrn_2', created_at: '2026-11-22T10:00:00.000Z', kind: 'order_charge', amount_sun: -2_600_000, amount_usdt: 0, order_id: 'ord_1', deposit: null },
    {
      id: 'jrn_1', created_at: '2026-11-22T09:00:00.000Z', kind: 'deposit', amount_sun: 100_000_000, amount_usdt: 0, order_id: null,
      deposit: { asset: 'TRX', status: 'credited', txid: 'ab'.repeat(32), sender: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', block_number: 12, usdt_amount: null, rate: null },
    },
  ]);
  const lines = csv.split('\r\n');
  expect(lines[0]).toBe(ledgerCsvColumns.join(','));
  expect(lines[1]).toBe('jrn_2,2026-11-22T10:00:00.000Z,order_charge,-2600000,0,ord_1,,,,,,,');
  expect(lines[2]).toBe(`jrn_1,2026-11-22T09:00:00.000Z,deposit,100000000,0,,TRX,credited,${'ab'.repeat(32)},TJRabPrwbZy45sbavfcjinPJC18kjpRTv8,12,,`);
  expect(lines[3]).toBe('');
  expect(lines).toHaveLength(4);
});

test('text a spreadsheet would run is quoted; commas and quotes are escaped', () => {
  const csv = ledgerCsv([{ id: '=HYPERLINK("x")', kind: 'adjustment', amount_sun: 5, amount_usdt: 0, order_id: 'a,b', deposit: null, created_at: 'c' }]);
  expect(csv.split('\r\n')[1]).toBe(`"'=HYPERLINK(""x"")",c,adjustment,5,0,"a,b",,,,,,,`);
  expect(ledgerCsv([])).toBe(`${ledgerCsvColumns.join(',')}\r\n`);
});
