/** A desk command's body on the wire: its kind, its payment id and the rest as JSON text (int64 exact). */
import { parseJson, stringifyBigintJson } from '../json';
import type { DeskCommand } from '../../domain/desk/commands';

export interface DeskStepWire {
  kind: string;
  payment_id: string;
  payload: string;
}

export function deskStepToWire(body: DeskCommand): DeskStepWire {
  const { type, ...rest } = body;
  return { kind: type, payment_id: body.paymentId, payload: stringifyBigintJson(rest) };
}

const big = (v: unknown): bigint => BigInt(v as number | bigint);

export function deskStepFromWire(wire: DeskStepWire): DeskCommand {
  const rest = parseJson(wire.payload) as Record<string, any>;
  if (wire.kind === 'desk.payment') {
    rest.amount = big(rest.amount);
    rest.returnFeeSun = big(rest.returnFeeSun);
    for (const k of ['priceSunPerUnit', 'minSun', 'maxSun', 'activationFeeSun']) rest.terms[k] = big(rest.terms[k]);
  } else {
    rest.amountSun = big(rest.amountSun);
  }
  return { type: wire.kind, ...rest } as DeskCommand;
}
