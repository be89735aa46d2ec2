/** The README's typed-client example is the one the build type-checks (clients/typescript/examples/place-order.ts). */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../../..');

test('the README example is the type-checked example, line for line', () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## The typed client'));
  const block = /```ts\n([\s\S]*?)```/.exec(section)![1].split('\n').filter((l) => l.trim() !== '');
  expect(block[0]).toMatch(/^import \{ createEnergyClient \} from '\.\/clients\/typescript\/src';/);
  const example = readFileSync(path.join(root, 'clients/typescript/examples/place-order.ts'), 'utf8');
  const body = example.slice(example.indexOf('// README begins\n') + '// README begins\n'.length, example.indexOf('  // README ends'));
  expect(block.slice(1)).toEqual(body.split('\n').filter((l) => l.trim() !== '').map((l) => l.replace(/^ {2}/, '')));
});
