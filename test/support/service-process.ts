/** Runs roles of the service as a child process, as production would, so tests can SIGKILL them. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { World } from './world';

const root = path.resolve(__dirname, '../..');

export interface ServiceProcess {
  child: ChildProcess;
  output: () => string;
  ready: Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export function startService(world: World, roles: string, env: Record<string, string> = {}): ServiceProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'services/main.ts'), '--roles', roles], {
    cwd: root,
    env: { ...world.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
