/**
 * A CPU profile of another process over a window of the bench's choosing (not the process's whole life, as
 * `--cpu-prof` writes it): the process runs with `--inspect=127.0.0.1:<port>`, this connects to its
 * inspector over the DevTools protocol and starts, then stops, the V8 profiler. The profile is the same
 * `.cpuprofile` shape bench/profile-summary.ts reads.
 */
import fs from 'node:fs';

interface Pending { resolve(v: unknown): void; reject(e: Error): void }

export interface WindowProfiler {
  /** Stops the profiler and writes its profile to `file`. */
  stop(file: string): Promise<void>;
}

/** Connects to the inspector on `port` (the first target it lists) and starts the profiler. */
export async function startWindowProfile(port: number, intervalUs = 1000): Promise<WindowProfiler> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
  const ws = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve(), { once: true });
    ws.addEventListener('error', () => reject(new Error(`inspector on ${port}: connection failed`)), { once: true });
  });
  let next = 1;
  const pending = new Map<number, Pending>();
  ws.addEventListener('message', (ev) => {
    const msg = JSON.parse(String(ev.data)) as { id?: number; result?: unknown; error?: { message: string } };
    const p = msg.id === undefined ? undefined : pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id!);
    if (msg.error) p.reject(new Error(msg.error.message));
    else p.resolve(msg.result);
  });
  const call = (method: string, params: object = {}) => new Promise<unknown>((resolve, reject) => {
    const id = next++;
    pending.set(id, { resolve, reject });
    ws.send(JSON.stringify({ id, method, params }));
  });
  await call('Profiler.enable');
  await call('Profiler.setSamplingInterval', { interval: intervalUs });
  await call('Profiler.start');
  return {
    async stop(file) {
      const { profile } = (await call('Profiler.stop')) as { profile: unknown };
      fs.writeFileSync(file, JSON.stringify(profile));
      ws.close();
    },
  };
}
