import type { InternalTx, TxLog } from '../actuators/tx-records';
import type { HexAddress } from '../crypto/address';
import { newAccount, StateView } from '../state/accounts';
import { internalTxHash } from './internal-tx';
import { encode, selector, signatureOf, type AbiEntry } from './abi';

/** What a call did; state writes went to the view the call was given. */
export interface CallResult {
  readonly ok: boolean;
  readonly returnData: Buffer;
  readonly energy: bigint;
  readonly logs: TxLog[];
}

/**
 * What one transaction's calls share, as java-tron's ProgramResult does: the internal transactions in
 * the order they were made (nested calls included) and the nonce that numbers them.
 */
export interface CallFrame {
  readonly contracts: { get(address: HexAddress): NativeContract | undefined };
  readonly internals: InternalTx[];
  nonce: number;
  /** Head block time, for accounts a call creates. */
  readonly nowMs: number;
}

export interface CallEnv {
  readonly view: StateView;
  readonly caller: HexAddress;
  readonly args: Buffer;
  /** The contract running. */
  readonly self: HexAddress;
  /** TRX (SUN) the call carried, already in self's balance. */
  readonly value: bigint;
  /**
   * A message call from this contract (Solidity `to.call{value}(data)`): TRX moves first, then the
   * target's code runs if it is a contract. Recorded as an internal transaction (note "call"); a
   * failed call keeps its internal transactions, marked rejected, and drops its state and logs.
   */
  call(target: HexAddress, data: Buffer, value: bigint): CallResult;
}

export type Handler = (env: CallEnv) => CallResult;

/** Energy of a value-carrying CALL (Solidity transfer) and the extra for creating the receiver. */
export const CALL_VALUE_ENERGY = 9_000n;
export const NEW_ACCOUNT_ENERGY = 25_000n;

/**
 * A contract the devnet runs natively instead of in a TVM: an ABI, and a handler per function
 * selector. Unknown selectors revert, as a Solidity contract without fallback does; so does TRX sent
 * to a function that is not payable.
 */
export class NativeContract {
  private readonly handlers = new Map<string, Handler>();
  private readonly payable = new Set<string>();
  readonly abi: AbiEntry[] = [];

  constructor(
    readonly address: HexAddress,
    readonly name: string,
    readonly origin: HexAddress,
  ) {}

  fn(entry: AbiEntry, handler: Handler): this {
    this.abi.push(entry);
    const sel = selector(signatureOf(entry));
    this.handlers.set(sel, handler);
    if (entry.payable) this.payable.add(sel);
    return this;
  }

  event(entry: AbiEntry): this {
    this.abi.push(entry);
    return this;
  }

  /** Whether a call with this data may carry TRX. */
  acceptsValue(data: Buffer): boolean {
    return data.length >= 4 && this.payable.has(data.subarray(0, 4).toString('hex'));
  }

  /**
   * Runs the function `data` selects. `frame` is the transaction's shared call record (a fresh one for
   * reads); `parentHash` the hash of the internal transaction this call runs in (the txid at the top).
   */
  call(view: StateView, caller: HexAddress, data: Buffer, value = 0n, frame?: CallFrame, parentHash = ''): CallResult {
    const sel = data.length >= 4 ? data.subarray(0, 4).toString('hex') : '';
    const handler = this.handlers.get(sel);
    if (!handler) return revert();
    const shared: CallFrame = frame ?? { contracts: { get: () => undefined }, internals: [], nonce: 0, nowMs: 0 };
    const env: CallEnv = {
      view, caller, args: data.subarray(4), self: this.address, value,
      call: (target, callData, callValue) => messageCall(shared, view, this.address, parentHash, target, callData, callValue),
    };
    try {
      return handler(env);
    } catch {
      // Malformed ABI arguments make a Solidity contract revert too.
      return revert();
    }
  }
}

/** Program.callToAddress for the native contracts: value first, then the callee's code on a child layer. */
function messageCall(frame: CallFrame, view: StateView, from: HexAddress, parentHash: string, to: HexAddress, data: Buffer, value: bigint): CallResult {
  frame.nonce += 1;
  const internal: InternalTx = {
    hash: internalTxHash(parentHash, to, data, value, frame.nonce), caller: from, to, value, note: 'call', rejected: false,
  };
  const firstOwn = frame.internals.length;
  frame.internals.push(internal);
  const fail = (energy: bigint): CallResult => {
    for (const it of frame.internals.slice(firstOwn)) it.rejected = true;
    return { ok: false, returnData: Buffer.alloc(0), energy, logs: [] };
  };

  const scratch = new StateView(view.layer.child());
  let energy = 0n;
  if (value > 0n) {
    const sender = scratch.account(from);
    if (!sender || sender.balance < value) return fail(CALL_VALUE_ENERGY);
    const receiver = scratch.account(to) ?? newAccount(to, frame.nowMs);
    if (!scratch.account(to)) energy += NEW_ACCOUNT_ENERGY;
    scratch.putAccount({ ...sender, balance: sender.balance - value });
    const after = scratch.account(to) ?? receiver;
    scratch.putAccount({ ...after, balance: after.balance + value });
    energy += CALL_VALUE_ENERGY;
  }
  const callee = frame.contracts.get(to);
  let result: CallResult = { ok: true, returnData: Buffer.alloc(0), energy: 0n, logs: [] };
  if (callee) {
    result = value > 0n && !callee.acceptsValue(data) ? revert() : callee.call(scratch, from, data, value, frame, internal.hash);
  }
  if (!result.ok) return fail(energy + result.energy);
  scratch.layer.mergeIntoParent();
  return { ...result, energy: energy + result.energy };
}

/** Energy a revert costs here (a require failing early in a token contract). */
export const REVERT_ENERGY = 1_000n;

/** Solidity's Error(string) selector: what `require(cond, "reason")` returns on revert. */
const ERROR_SELECTOR = '08c379a0';

/** A revert; with a reason, its return data is Error(reason) ABI-encoded, as solc's `require` leaves it. */
export function revert(reason?: string): CallResult {
  const returnData = reason === undefined ? Buffer.alloc(0) : Buffer.concat([Buffer.from(ERROR_SELECTOR, 'hex'), encode(['string'], [reason])]);
  return { ok: false, returnData, energy: REVERT_ENERGY, logs: [] };
}

export function ok(returnData: Buffer, energy: bigint, logs: TxLog[] = []): CallResult {
  return { ok: true, returnData, energy, logs };
}
