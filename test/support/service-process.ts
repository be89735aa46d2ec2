/** Runs roles of the service as a child process, as production would, so tests can SIGKILL them. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { World } from './world';
import { entryArgs } from './built-entry';
import { signUp } from './identity';

const root = path.resolve(__dirname, '../..');

export interface ServiceProcess {
  child: ChildProcess;
  output: () => string;
  ready: Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Children still running when this process exits are killed with it. An orphan outlives its test: on a fixed
 * port and database (make chaos's private instances) it reconnects to the next run's and works against it
 * (seen: an orphaned relay held the next run's outbox leader lock, so nothing of that run was published).
 */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export function startService(world: World, roles: string, env: Record<string, string> = {}): ServiceProcess {
  const child = spawn(process.execPath, [...entryArgs('services/main.ts', ['services', 'topics'], ['--import', 'tsx']), '--roles', roles], {
    cwd: root,
    env: { ...world.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  let out = '';
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.length > 200_000) out = out.slice(-100_000);
      if (out.includes('"msg":"started"')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code, signal) => reject(new Error(`service (${roles}) exited early: ${code ?? signal}\n${out.slice(-3000)}`)));
  });
  ready.catch(() => undefined);
  return {
    child,
    output: () => out,
    ready,
    kill: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}

/**
 * Starts the service (`roles`) with `env` over the world's (an undefined value removes the variable) and waits
 * for it to exit: for starts that must be refused. Its exit code and everything it printed.
 */
export function startRefused(world: World, env: Record<string, string | undefined>, roles = 'api'): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [...entryArgs('services/main.ts', ['services', 'topics'], ['--import', 'tsx']), '--roles', roles], {
    cwd: root, env: { ...world.env, API_PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolve) => child.once('exit', (code) => (live.delete(child), resolve({ code, output }))));
}

/**
 * Starts `api,processor,relay` on `port`, signs a customer up through it (commands appended, applied and
 * answered) and reads /readyz's checks, then stops it: a start over secured connections, end to end.
 */
export async function signUpThroughService(world: World, port: string): Promise<{ accountId: string; checks: Record<string, string> }> {
  const service = startService(world, 'api,processor,relay', { API_PORT: port });
  try {
    await service.ready;
    const base = `http://127.0.0.1:${port}`;
    const customer = await signUp(base);
    const ready = await fetch(`${base}/readyz`).then((r) => r.json() as Promise<{ checks: Record<string, string> }>);
    return { accountId: customer.accountId, checks: ready.checks };
  } finally {
    await service.kill();
  }
}
