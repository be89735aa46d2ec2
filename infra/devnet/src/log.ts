/** One JSON object per line on stdout, so the log can be grepped and parsed alike. */
export function log(level: 'info' | 'warn' | 'error', msg: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(JSON.stringify({ time: new Date().toISOString(), level, service: 'devnet', msg, ...fields }) + '\n');
}
