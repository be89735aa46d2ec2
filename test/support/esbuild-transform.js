/**
 * Jest transform over esbuild's transformSync (the esbuild tsx already runs the service with), instead of
 * ts-jest: type-stripping only, as ts-jest's transpile-only mode was (the build type-checks), at a fraction of
 * the CPU per file and without loading the TypeScript compiler into every worker. On a fresh CI machine the
 * transform cache is cold, so every worker transformed every module it loaded through TypeScript.
 *
 * A file that calls jest.mock goes through ts-jest still: jest.mock must run before the file's imports, and
 * ts-jest hoists it there; esbuild would not.
 */
const crypto = require('node:crypto');
const esbuild = require('esbuild');

const esbuildOptions = {
  loader: 'ts',
  format: 'cjs',
  target: 'es2022',
  platform: 'node',
  sourcemap: true,
  sourcesContent: false,
  // import() becomes require(), as tsc's module commonjs emits it (jest's module registry has no ESM loader).
  supported: { 'dynamic-import': false },
  // tsconfig.json's settings that change emitted code (target ES2022: class fields are defined).
  tsconfigRaw: { compilerOptions: { useDefineForClassFields: true, esModuleInterop: true } },
};

let tsJest;
function hoisting() {
  tsJest ??= require('ts-jest').default.createTransformer({ isolatedModules: true, diagnostics: false });
  return tsJest;
}

const needsHoisting = (source) => source.includes('jest.mock(');

module.exports = {
  process(source, filename, options) {
    if (needsHoisting(source)) return hoisting().process(source, filename, options);
    const { code, map } = esbuild.transformSync(source, { ...esbuildOptions, sourcefile: filename });
    return { code, map };
  },
  getCacheKey(source, filename, options) {
    if (needsHoisting(source)) return hoisting().getCacheKey(source, filename, options);
    return crypto
      .createHash('sha256')
      .update(esbuild.version)
      .update('\0')
      .update(JSON.stringify(esbuildOptions))
      .update('\0')
      .update(filename)
      .update('\0')
      .update(source)
      .digest('hex');
  },
};
