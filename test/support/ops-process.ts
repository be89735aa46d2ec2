/** Runs `./bin/ops` (from source) as a child process in a world's environment, as an operator would. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { World } from './world';

const root = path.resolve(__dirname, '../..');

export function runOps(world: World, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'services/ops/cli.ts'), ...args], { cwd: root, env: world.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
