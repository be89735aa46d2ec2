/**
 * Native secp256k1 signing (services/chain/signing.ts) is byte-identical to TronWeb's signer, and its
 * recovery names the same public key as TronWeb's (ethers'), over random keys and digests.
 */
import { randomBytes } from 'node:crypto';
import { utils } from 'tronweb';
import { recoverPublicKey, signDigest } from '../../services/chain/signing';

const cases = Array.from({ length: 400 }, () => ({ key: randomBytes(32).toString('hex'), digest: randomBytes(32).toString('hex') }));

test('every signature is the one TronWeb makes for the same key and digest', () => {
  const differing = cases.filter(({ key, digest }) => signDigest(key, digest) !== utils.crypto.ECKeySign(Buffer.from(digest, 'hex') as never, Buffer.from(key, 'hex') as never));
  expect(differing).toEqual([]);
  // Both recovery ids occur, so the v byte's spelling was compared for both.
  expect(new Set(cases.map(({ key, digest }) => signDigest(key, digest).slice(-2)))).toEqual(new Set(['1B', '1C']));
});

test('recovery gives the signer\'s public key, as TronWeb recovers it; a changed digest gives another key', () => {
  for (const { key, digest } of cases.slice(0, 50)) {
    const signature = signDigest(key, digest);
    const expected = utils.ethersUtils.SigningKey.computePublicKey('0x' + key, false).slice(2);
    expect(recoverPublicKey(digest, signature).toString('hex')).toBe(expected);
    const other = (BigInt('0x' + digest) ^ 1n).toString(16).padStart(64, '0');
    expect(recoverPublicKey(other, signature).toString('hex')).not.toBe(expected);
  }
});
