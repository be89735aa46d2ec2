import { parentPort } from 'node:worker_threads';
import { SignatureVerifier, type SigCheck } from './verify';

/** Worker side of the signature pool: checks batches and answers in the same order. */
const verifier = new SignatureVerifier();

parentPort?.on('message', (msg: { id: number; items: SigCheck[]; keys?: Uint8Array[] }) => {
  for (const key of msg.keys ?? []) verifier.remember(Buffer.from(key));
  parentPort?.postMessage({ id: msg.id, results: msg.items.map((item) => verifier.check(item)) });
});
