/**
 * A helper process of a test (a proxy under test/support/) that prints `listening <port>` once it accepts
 * connections: started with tsx, answered with its port.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export async function startListening(script: string, args: string[]): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`${script} exited: ${code}`)));
  });
  return { child, port };
}
