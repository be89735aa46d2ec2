/** What applying one command produces: plain data the processor persists in one transaction. */
import type { Account } from './account';
import type { Command } from './commands';
import type { DomainError } from './errors';
import type { DomainEvent } from './events';
import type { Journal } from './ledger';

export interface Effects {
  /** Final state of every account the command changed (or created). */
  accounts: Account[];
  journals: Journal[];
  events: DomainEvent[];
  /** Commands to append to the log once this one is committed (through the outbox). */
  followUps: Command[];
}

export type Outcome =
  | { kind: 'applied'; status: 200 | 201 | 202; body: Record<string, unknown>; effects: Effects }
  | { kind: 'rejected'; error: DomainError };

/** Read access to the state a command may depend on. */
export interface StateView {
  account(id: string): Account | undefined;
}

export interface ApplyContext {
  network: 'mainnet' | 'nile';
  brand: string;
}

export function noEffects(): Effects {
  return { accounts: [], journals: [], events: [], followUps: [] };
}

export function rejected(error: DomainError): Outcome {
  return { kind: 'rejected', error };
}

export type Handler<C extends Command> = (state: StateView, command: C, ctx: ApplyContext) => Outcome;
