/**
 * Crash points for the crash-safety tests: with CHAOS_CRASH_POINTS set (never on mainnet), the process
 * kills itself with SIGKILL at a named point with the given probability, exactly as a power cut would.
 */
let points = new Map<string, number>();

export function configureChaos(spec: string | undefined): void {
  points = new Map(
    (spec ?? '')
      .split(',')
      .filter(Boolean)
      .map((entry) => {
        const [name, p] = entry.split(':');
        return [name, Number(p)] as const;
      }),
  );
}

export function crashPoint(name: string): void {
  const p = points.get(name);
  if (p !== undefined && Math.random() < p) process.kill(process.pid, 'SIGKILL');
}
