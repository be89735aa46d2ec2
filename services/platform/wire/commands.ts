/** Domain commands to and from the Avro shape of schemas/account-command.avsc. */
import type { Command, CommandBody } from '../../domain/commands';

const ns = 'energy.rental.commands.';

/** Avro wraps a union of records as `{ "<full record name>": record }`. */
type WireBody = Record<string, Record<string, unknown>>;

export interface WireCommand {
  command_id: string;
  account_id: string;
  issued_at: bigint;
  deadline_at: bigint | null;
  reply_to: string | null;
  body: WireBody;
}

function bodyToWire(body: CommandBody): WireBody {
  switch (body.type) {
    case 'account.create':
      return {
        [`${ns}CreateAccount`]: {
          brand: body.brand, network: body.network, owner_address: body.ownerAddress, display_name: body.displayName,
          email: body.email ?? null, deposit_address: body.depositAddress ?? null, deposit_index: body.depositIndex ?? null,
        },
      };
    case 'account.rename':
      return { [`${ns}RenameAccount`]: { display_name: body.displayName } };
    case 'deposit_address.assign':
      return { [`${ns}AssignDepositAddress`]: { address: body.address, derivation_index: body.derivationIndex, reason: body.reason } };
    case 'balance.adjust':
      return { [`${ns}AdjustBalance`]: { amount_sun: BigInt(body.amountSun), memo: body.memo } };
    case 'command.refused':
      return { [`${ns}CommandRefused`]: { refused_command_id: body.refusedCommandId, reason: body.reason } };
  }
}

function bodyFromWire(wire: WireBody): CommandBody {
  const [name, value] = Object.entries(wire)[0] as [string, Record<string, any>];
  switch (name.slice(ns.length)) {
    case 'CreateAccount':
      return {
        type: 'account.create', brand: value.brand, network: value.network, ownerAddress: value.owner_address, displayName: value.display_name,
        email: value.email, depositAddress: value.deposit_address, depositIndex: value.deposit_index,
      };
    case 'RenameAccount':
      return { type: 'account.rename', displayName: value.display_name };
    case 'AssignDepositAddress':
      return { type: 'deposit_address.assign', address: value.address, derivationIndex: value.derivation_index, reason: value.reason };
    case 'AdjustBalance':
      return { type: 'balance.adjust', amountSun: value.amount_sun, memo: value.memo };
    case 'CommandRefused':
      return { type: 'command.refused', refusedCommandId: value.refused_command_id, reason: value.reason };
    default:
      throw new Error(`unknown command body ${name}`);
  }
}

export function commandToWire(command: Command): WireCommand {
  const { commandId, accountId, issuedAt, deadlineAt, replyTo, ...body } = command;
  return {
    command_id: commandId,
    account_id: accountId,
    issued_at: BigInt(issuedAt),
    deadline_at: deadlineAt === null ? null : BigInt(deadlineAt),
    reply_to: replyTo,
    body: bodyToWire(body as CommandBody),
  };
}

export function commandFromWire(wire: WireCommand): Command {
  return {
    commandId: wire.command_id,
    accountId: wire.account_id,
    issuedAt: Number(wire.issued_at),
    deadlineAt: wire.deadline_at === null ? null : Number(wire.deadline_at),
    replyTo: wire.reply_to,
    ...bodyFromWire(wire.body),
  };
}
