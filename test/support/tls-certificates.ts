/**
 * Certificates made at test time with openssl, for the secured instances tests start (PostgreSQL with ssl=on,
 * Redis with a TLS port): a CA, a server certificate it signs for 127.0.0.1 (and localhost), and a second CA
 * that signed nothing (an untrusted one). Files: ca.crt, server.crt, server.key, other.crt in `dir`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });

export function makeCertificates(dir: string): void {
  const f = (name: string) => path.join(dir, name);
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.crt'), '-days', '2', '-subj', '/CN=energy test CA']);
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('other.key'), '-out', f('other.crt'), '-days', '2', '-subj', '/CN=untrusted CA']);
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=127.0.0.1']);
  fs.writeFileSync(f('san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(['x509', '-req', '-in', f('server.csr'), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('server.crt'), '-days', '2', '-extfile', f('san.ext')]);
  fs.chmodSync(f('server.key'), 0o600);
}

/** A client certificate the same CA signs (client.crt, client.key), for a listener that requires one; after makeCertificates. */
export function makeClientCertificate(dir: string): void {
  const f = (name: string) => path.join(dir, name);
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('client.key'), '-out', f('client.csr'), '-subj', '/CN=energy-rental client']);
  openssl(['x509', '-req', '-in', f('client.csr'), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('client.crt'), '-days', '2']);
  fs.chmodSync(f('client.key'), 0o600);
}
