/** Child processes of the benchmarks: a free port for them, waiting until they answer, stopping them. */
import type { ChildProcess } from 'node:child_process';
import net from 'node:net';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** Until GET `url` answers 200 (at most 300 s); fails at once when `child` exits. */
export async function waitReady(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 1500; i++) {
    if (child.exitCode !== null) throw new Error(`${url}: process exited with ${child.exitCode}`);
    if (await fetch(url).then((r) => r.status === 200, () => false)) return;
    await sleep(200);
  }
  throw new Error(`${url} not ready after 300 s`);
}

/** SIGTERM, then SIGKILL after 15 s; resolves once it exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
  });
}
