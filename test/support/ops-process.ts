/**
 * Runs the ops tool as a child process in a world's environment, as an operator would: the built program when
 * `npm run build` left it current (as ./bin/ops chooses), else from source through tsx, which on a loaded
 * machine spent seconds per run transpiling.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { entryArgs } from './built-entry';
import type { World } from './world';

const root = path.resolve(__dirname, '../..');

export function runOps(world: World, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...entryArgs('services/ops/cli.ts', ['services', 'topics'], ['--import', 'tsx']), ...args], { cwd: root, env: world.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
