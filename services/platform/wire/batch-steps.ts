/** A batch command's body on the wire: its kind, its batch id (the record's key part) and the rest as JSON text. */
import { parseOwnJson, stringifyBigintJson } from '../json';
import { specFromStored, storedForm } from '../../domain/batches/rules';
import type { BatchCommand } from '../../domain/batches/commands';

export interface BatchStepWire {
  kind: string;
  batch_id: string | null;
  payload: string;
}

export function batchStepToWire(body: BatchCommand): BatchStepWire {
  const { type, ...rest } = body;
  // batch.create: each spec without its null fields (specFromStored fills them back).
  const payload = body.type === 'batch.create' ? { ...rest, items: body.items.map(storedForm) } : rest;
  return { kind: type, batch_id: 'batchId' in body ? body.batchId : null, payload: stringifyBigintJson(payload) };
}

export function batchStepFromWire(wire: BatchStepWire): BatchCommand {
  const rest = parseOwnJson(wire.payload) as Record<string, any>;
  if (wire.kind === 'batch.create') {
    rest.items = (rest.items as Array<Record<string, any>>).map(specFromStored);
  }
  if (wire.kind === 'batch.complete') rest.chargedSun = BigInt(rest.chargedSun);
  return { type: wire.kind, ...rest } as BatchCommand;
}
