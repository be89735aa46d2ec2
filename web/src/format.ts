/** Display helpers. Amounts arrive in SUN (integers); 1 TRX = 1 000 000 SUN. */
export function trx(sun: number | string | bigint | null | undefined): string {
  if (sun === null || sun === undefined) return '–';
  const v = BigInt(sun);
  const neg = v < 0n;
  const abs = neg ? -v : v;
  const whole = abs / 1_000_000n;
  const frac = (abs % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  const grouped = whole.toString().replace(/\B(?=(\d{3})+(?!\d))/g, '\u00a0');
  return `${neg ? '−' : ''}${grouped}${frac ? '.' + frac : ''}\u00a0TRX`;
}

export function usdt(units: number | string | null | undefined): string {
  if (units === null || units === undefined) return '–';
  const v = BigInt(units);
  return `${(v / 1_000_000n).toString()}.${(v % 1_000_000n).toString().padStart(6, '0').slice(0, 2)} USDT`;
}

export function when(iso: string | null | undefined): string {
  if (!iso) return '–';
  const d = new Date(iso);
  return d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

export function short(s: string | null | undefined, keep = 6): string {
  if (!s) return '–';
  return s.length <= keep * 2 + 1 ? s : `${s.slice(0, keep)}…${s.slice(-keep)}`;
}

export function num(n: number | null | undefined): string {
  return n === null || n === undefined ? '–' : n.toLocaleString('en-US').replace(/,/g, '\u00a0');
}
