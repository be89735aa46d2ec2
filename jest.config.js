/**
 * Two projects: `unit` (pure logic, no I/O) and `integration` (the real Kafka, registry, PostgreSQL, Redis
 * and devnet, started by `make test` on the test profile's ports). Integration files run two at a time (each in its
 * own world); the crash tests and other tightly timed files run alone afterwards (Makefile, target test).
 */
// Type-stripping only (the build type-checks): esbuild (already installed for tsx), ts-jest for files that call
// jest.mock (test/support/esbuild-transform.js).
const transform = { '^.+\\.ts$': '<rootDir>/test/support/esbuild-transform.js' };
// Jest's node environment, which also notes each file's CPU when TEST_CPU_DIR is set (.ci/test-phases.sh's table).
const testEnvironment = '<rootDir>/test/support/cpu-environment.js';

module.exports = {
  // No watchman: on a fresh CI machine it may not exist, and where it does it can hang the run.
  watchman: false,
  testTimeout: 180000,
  projects: [
    { displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'], transform, testEnvironment },
    {
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts', '<rootDir>/test/devnet/**/*.test.ts'],
      transform,
      testEnvironment,
      // Worlds' databases are dropped once at the end of the run, not one by one (test/support/retired-databases.ts).
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      // Every error an in-process API answered is among its operation's declared codes (the API document).
      setupFilesAfterEnv: ['<rootDir>/test/support/declared-errors-check.ts'],
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    // The dashboard in Debian's chromium (playwright-core) against a real stack; `make test` runs it beside the
    // parallel integration files (.ci/test-phases.sh).
    { displayName: 'browser', testMatch: ['<rootDir>/test/browser/**/*.test.ts'], transform, testEnvironment },
  ],
};
