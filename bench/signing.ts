/**
 * CPU per signature and per verify, side by side in one process: the pool's signer before (TronWeb's
 * utils.crypto.ECKeySign, pure JS) and now (services/chain/signing.ts, libsecp256k1), and the devnet's
 * verify before (OpenSSL through node:crypto) and now (libsecp256k1). Rounds alternate the two of each
 * pair; medians of the rounds. `npx tsx bench/signing.ts [rounds=5] [n=2000]`.
 */
import { createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import { ecdsaVerify, publicKeyCreate, signatureNormalize } from 'secp256k1';
import { utils } from 'tronweb';
import { signDigest } from '../services/chain/signing';
import { median } from './figures';

const rounds = Number(process.argv[2] ?? 5);
const n = Number(process.argv[3] ?? 2000);

const usPerOp = (fn: () => void): number => {
  const t = process.cpuUsage();
  for (let i = 0; i < n; i++) fn();
  const u = process.cpuUsage(t);
  return (u.user + u.system) / n;
};

const key = randomBytes(32);
const keyHex = key.toString('hex');
const publicKey = Buffer.from(publicKeyCreate(key, false));
const jwk = createPublicKey({ key: { kty: 'EC', crv: 'secp256k1', x: publicKey.subarray(1, 33).toString('base64url'), y: publicKey.subarray(33).toString('base64url') }, format: 'jwk' });
const raws = Array.from({ length: n }, () => randomBytes(120));
const digests = raws.map((r) => createHash('sha256').update(r).digest());
const signatures = digests.map((d) => Buffer.from(signDigest(keyHex, d.toString('hex')), 'hex'));

const figures = { tronwebSign: [] as number[], nativeSign: [] as number[], opensslVerify: [] as number[], nativeVerify: [] as number[] };
for (let r = 0; r < rounds; r++) {
  let i = 0;
  figures.tronwebSign.push(usPerOp(() => utils.crypto.ECKeySign(digests[i++ % n] as never, key as never)));
  i = 0;
  figures.nativeSign.push(usPerOp(() => signDigest(keyHex, digests[i++ % n].toString('hex'))));
  i = 0;
  figures.opensslVerify.push(usPerOp(() => {
    const k = i++ % n;
    if (!verify('sha256', raws[k], { key: jwk, dsaEncoding: 'ieee-p1363' }, signatures[k].subarray(0, 64))) throw new Error('verify');
  }));
  i = 0;
  figures.nativeVerify.push(usPerOp(() => {
    const k = i++ % n;
    if (!ecdsaVerify(signatureNormalize(Buffer.from(signatures[k].subarray(0, 64))), createHash('sha256').update(raws[k]).digest(), publicKey)) throw new Error('verify');
  }));
}
const m = Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, median(v)])) as Record<keyof typeof figures, number>;
console.log(`rounds ${rounds} x ${n} operations, CPU µs per operation (median):`);
console.log(`  sign    TronWeb ${m.tronwebSign.toFixed(1)}  libsecp256k1 ${m.nativeSign.toFixed(1)}  (${(m.tronwebSign / m.nativeSign).toFixed(1)}x)`);
console.log(`  verify  OpenSSL ${m.opensslVerify.toFixed(1)}  libsecp256k1 ${m.nativeVerify.toFixed(1)}  (${(m.opensslVerify / m.nativeVerify).toFixed(1)}x)`);
