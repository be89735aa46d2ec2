/** This package's version (package.json's; test/unit/client/package.test.ts keeps the two equal), sent in the User-Agent. */
export const CLIENT_VERSION = '0.2.0';
