import type { TxLog } from '../actuators/context';
import type { HexAddress } from '../crypto/address';
import type { StateView } from '../state/accounts';
import { selector, signatureOf, type AbiEntry } from './abi';

/** What a call did; state writes went to the view the call was given. */
export interface CallResult {
  readonly ok: boolean;
  readonly returnData: Buffer;
  readonly energy: bigint;
  readonly logs: TxLog[];
}

export interface CallEnv {
  readonly view: StateView;
  readonly caller: HexAddress;
  readonly args: Buffer;
}

export type Handler = (env: CallEnv) => CallResult;

/**
 * A contract the devnet runs natively instead of in a TVM: an ABI, and a handler per function
 * selector. Unknown selectors revert, as a Solidity contract without fallback does.
 */
export class NativeContract {
  private readonly handlers = new Map<string, Handler>();
  readonly abi: AbiEntry[] = [];

  constructor(
    readonly address: HexAddress,
    readonly name: string,
    readonly origin: HexAddress,
  ) {}

  fn(entry: AbiEntry, handler: Handler): this {
    this.abi.push(entry);
    this.handlers.set(selector(signatureOf(entry)), handler);
    return this;
  }

  event(entry: AbiEntry): this {
    this.abi.push(entry);
    return this;
  }

  call(view: StateView, caller: HexAddress, data: Buffer): CallResult {
    const handler = data.length >= 4 ? this.handlers.get(data.subarray(0, 4).toString('hex')) : undefined;
    if (!handler) return revert();
    try {
      return handler({ view, caller, args: data.subarray(4) });
    } catch {
      // Malformed ABI arguments make a Solidity contract revert too.
      return revert();
    }
  }
}

/** Energy a revert costs here (a require failing early in a token contract). */
export const REVERT_ENERGY = 1_000n;

export function revert(): CallResult {
  return { ok: false, returnData: Buffer.alloc(0), energy: REVERT_ENERGY, logs: [] };
}

export function ok(returnData: Buffer, energy: bigint, logs: TxLog[] = []): CallResult {
  return { ok: true, returnData, energy, logs };
}
