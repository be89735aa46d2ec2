/**
 * The webhook benchmark's receiver as a process of its own (bench/webhooks.ts forks it unless
 * BENCH_RECEIVER=inprocess): the test HTTPS receiver answering 200 at once (its CA, made here, is sent to
 * the parent with the URL), which reports over IPC, every
 * 10 ms, each request's key (the credit's reference_id, else the event id) and its arrival time
 * (performance.timeOrigin + performance.now(), comparable across processes on one machine).
 */
import { parseJson } from '../services/platform/json';
import { startReceiver, testCa } from '../test/support/https-receiver';

async function main(): Promise<void> {
  let pending: Array<[string, number]> = [];
  const receiver = await startReceiver((r) => {
    const env = parseJson(r.raw.toString()) as { event_id: string; data: { reference_id?: string } };
    pending.push([env.data.reference_id ?? env.event_id, performance.timeOrigin + performance.now()]);
    return { status: 200 };
  });
  // Only the arrivals are kept; the support receiver's list of every request would grow for nothing.
  const flush = setInterval(() => {
    receiver.requests.length = 0;
    if (pending.length === 0) return;
    process.send!({ arrivals: pending });
    pending = [];
  }, 10);
  process.on('message', (m: { stop?: boolean }) => {
    if (!m.stop) return;
    clearInterval(flush);
    void receiver.close().then(() => process.exit(0));
  });
  process.send!({ url: receiver.url, ca: testCa().ca.toString() });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
