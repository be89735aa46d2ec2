/**
 * Commands: every change to money or to an account enters the log as one of these. A command carries
 * everything its effect depends on (ids, the time it was received, prices, chain facts) so a replay of
 * the log rebuilds the same state.
 */
export interface CommandMeta {
  commandId: string;
  accountId: string;
  /** When the command was received; the effects' timestamps derive from it, never from the processor's clock. */
  issuedAt: number;
  /** Past this instant the processor refuses the command; null for commands that must always apply (chain facts). */
  deadlineAt: number | null;
  /** Reply channel of the waiting API or ops instance; null when nobody waits. */
  replyTo: string | null;
}

export interface CreateAccountCommand {
  type: 'account.create';
  brand: string;
  network: 'mainnet' | 'nile';
  ownerAddress: string | null;
  displayName: string | null;
  email?: string | null;
  /** Drawn by the caller (a PostgreSQL sequence) so a replay derives nothing itself. */
  depositAddress?: string | null;
  depositIndex?: number | null;
}

/** The owner's title for the account (PATCH /v1/account); null clears it. */
export interface RenameAccountCommand {
  type: 'account.rename';
  displayName: string | null;
}

/**
 * Issues a deposit address (first issue, for an account that has none) or replaces it (support rotation,
 * within the rotation limits). Emits deposit_address.rotated.
 */
export interface AssignDepositAddressCommand {
  type: 'deposit_address.assign';
  address: string;
  derivationIndex: number;
  /** `issue` does nothing when the account already has an address (two first reads racing). */
  reason: 'issue' | 'rotate';
}

export interface AdjustBalanceCommand {
  type: 'balance.adjust';
  amountSun: bigint;
  memo: string;
}

export type RefusalReason = 'deadline_passed' | 'abandoned';

/** Written back to the log (through the outbox) when a command is refused, so a replay refuses it too. */
export interface CommandRefusedMarker {
  type: 'command.refused';
  refusedCommandId: string;
  reason: RefusalReason;
}

export type CommandBody =
  | CreateAccountCommand | AdjustBalanceCommand | CommandRefusedMarker | RenameAccountCommand | AssignDepositAddressCommand;
export type CommandType = CommandBody['type'];
export type Command = CommandMeta & CommandBody;
export type CommandOf<T extends CommandType> = CommandMeta & Extract<CommandBody, { type: T }>;
