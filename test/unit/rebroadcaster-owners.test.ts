/**
 * Rebroadcaster: a DUP_TRANSACTION answer is our own re-broadcast only when the sending order stored the id.
 * The owners of one round's duplicates are read in one call, and once per id (a transaction not yet in a block
 * is answered DUP every `everyMs`); an id whose owner differs, or that no order stored, is dropped.
 */
import type { BroadcastOutcome, ChainWriter } from '../../services/chain/writes';
import { Rebroadcaster } from '../../services/chain/rebroadcaster';

function duplicateWriter(): ChainWriter & { sent: string[] } {
  const sent: string[] = [];
  return { sent, broadcast: async (signed: string): Promise<BroadcastOutcome> => (sent.push(signed), { kind: 'duplicate' }) } as unknown as ChainWriter & { sent: string[] };
}

test('owners of a round of duplicates are read once per id, and a foreign or unknown id is dropped', async () => {
  const stored = new Map([['t1', 'ord_a'], ['t2', 'ord_b'], ['t3', 'ord_other']]);
  const lookups: string[][] = [];
  const writer = duplicateWriter();
  // everyMs 0: every send re-broadcasts everything still alive.
  const sender = new Rebroadcaster(writer, 0, async (ids) => {
    lookups.push([...ids]);
    return new Map(ids.filter((id) => stored.has(id)).map((id) => [id, stored.get(id) as string]));
  });
  const txs = [
    { orderId: 'ord_a', txId: 't1', signedTx: 's1' },
    { orderId: 'ord_b', txId: 't2', signedTx: 's2' },
    { orderId: 'ord_c', txId: 't3', signedTx: 's3' }, // stored by another order
    { orderId: 'ord_d', txId: 't4', signedTx: 's4' }, // stored by no order
  ];
  await sender.send(txs);
  expect(lookups).toEqual([['t1', 't2', 't3', 't4']]);
  expect(sender.wasAccepted('t1') && sender.wasAccepted('t2')).toBe(true);
  expect([sender.alive('t3'), sender.alive('t4')]).toEqual([false, false]);
  expect(sender.wasAccepted('t3') || sender.wasAccepted('t4')).toBe(false);

  // Again: the two live ones are re-broadcast and answered DUP again; their owners are not read again.
  await sender.send(txs);
  expect(writer.sent.filter((s) => s === 's1' || s === 's2')).toHaveLength(4);
  expect(writer.sent.filter((s) => s === 's3' || s === 's4')).toHaveLength(2);
  expect(lookups).toHaveLength(1);

  // Forgotten (the order left the work list): its owner is read again when it comes back.
  sender.forget(['t1']);
  await sender.send(txs.slice(0, 1));
  expect(lookups).toEqual([['t1', 't2', 't3', 't4'], ['t1']]);
  expect(sender.wasAccepted('t1')).toBe(true);
});

test('without an owner lookup every duplicate is taken as our own', async () => {
  const sender = new Rebroadcaster(duplicateWriter(), 0);
  await sender.send([{ orderId: 'ord_a', txId: 't1', signedTx: 's1' }]);
  expect(sender.wasAccepted('t1')).toBe(true);
});

test('a transaction sent ahead (its set stored for that order) is answered DUP later without an owner lookup', async () => {
  const lookups: string[][] = [];
  const sender = new Rebroadcaster(duplicateWriter(), 0, async (ids) => (lookups.push([...ids]), new Map()));
  const tx = { orderId: 'ord_a', txId: 't1', signedTx: 's1' };
  await sender.sendAhead([tx]);
  await sender.send([tx, { orderId: 'ord_b', txId: 't2', signedTx: 's2' }]);
  expect(sender.wasAccepted('t1')).toBe(true);
  // Only the one not sent ahead is looked up (and, stored by no order here, dropped).
  expect(lookups).toEqual([['t2']]);
  expect(sender.alive('t2')).toBe(false);
});
