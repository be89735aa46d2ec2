/**
 * The processor's state of one feature for one slice (orders, promo, API keys, ...): loaded for the slice's
 * commands, read by the pure handlers through StateView (domain/outcome.ts), changed by each command's
 * effects so a later command in the slice sees them, then written back inside the slice's transaction.
 * apply-batch.ts runs every state of `processorStates` (processor-states.ts) through these steps.
 */
import type { Command } from '../domain/commands';
import type { Effects, StateView } from '../domain/outcome';
import type { WriteGroup } from '../platform/db/bulk';
import type { PoolClient } from '../platform/db/pool';

export interface SaveGroups {
  /** Sent first, in one statement with the ledger's writes (rows the other stores may refer to). */
  first: WriteGroup;
  /** Sent last, with the outbox rows, the command results and the consumer's checkpoint. */
  last: WriteGroup;
}

export interface FeatureState {
  /** Takes one applied command's effects into memory; `trace`: the command's trace context (traceparent headers), if any. */
  absorb(effects: Effects, command: Command, trace: Record<string, string> | null): void;
  /** Adds the changed rows to the slice's write groups (no round trip of its own). */
  stage?(groups: SaveGroups): void;
  /** Writes the changed rows with statements of its own, after `first` is sent and before `last`. */
  write?(client: PoolClient): Promise<void>;
}

/** The StateView members a feature state serves. */
export type FeatureViewName = Exclude<keyof StateView, 'account' | 'deposit'>;

export interface FeatureStateKind<K extends FeatureViewName = FeatureViewName> {
  view: K;
  load(client: PoolClient, commands: Command[]): Promise<FeatureState & NonNullable<StateView[K]>>;
}
