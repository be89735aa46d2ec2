/** What the identity routes share: the runtime, the command bus, the validator and the USDT rate source. */
import type { CommandBus, NewCommand } from '../platform/command-bus';
import type { Runtime } from '../chain/clients';
import { isTronAddress } from '../chain/address';
import type { Response } from 'express';
import { ApiError } from './errors';
import { markStage } from './stage-timing';
import type { RequestValidator } from './validate';
import type { RateSource } from '../domain/deposits';

export interface IdentityDeps {
  rt: Runtime;
  bus: CommandBus;
  validator: RequestValidator;
  rate: RateSource;
}

/** The regex in the schema checks the shape; this checks the Base58Check checksum. */
export function checkAddress(value: string, field: string): string {
  if (!isTronAddress(value)) throw new ApiError('invalid_request', `\`${field}\` is not a valid TRON address (checksum).`, { field });
  return value;
}

/**
 * Submits a command and answers its body, or throws the processor's error (503 when refused). Given `res`,
 * marks the Server-Timing stages `append` (acknowledged by the log) and `reply` (the processor's answer).
 */
export async function submitCommand(bus: CommandBus, body: NewCommand, res?: Response): Promise<{ status: number; body: Record<string, unknown> }> {
  const result = await bus.submit(body, undefined, undefined, res && (() => markStage(res, 'append')));
  if (res) markStage(res, 'reply');
  if (result.outcome !== 'applied' || !result.body) {
    throw result.error ? ApiError.from(result.error) : new ApiError('service_unavailable');
  }
  return { status: result.status as number, body: result.body };
}
