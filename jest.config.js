/**
 * Two projects: `unit` (pure logic, no I/O) and `integration` (the real Kafka, registry, PostgreSQL, Redis
 * and devnet, started by `make test` on the test profile's ports). Integration tests run one file at a time.
 */
const transform = { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }] };

module.exports = {
  testTimeout: 180000,
  projects: [
    { displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'], transform, testEnvironment: 'node' },
    {
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts', '<rootDir>/test/devnet/**/*.test.ts'],
      transform,
      testEnvironment: 'node',
    },
  ],
};
