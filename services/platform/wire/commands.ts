/** Domain commands to and from the Avro shape of schemas/account-command.avsc. */
import type { Command, CommandBody, SignedTxFact } from '../../domain/commands';
import { batchStepFromWire, batchStepToWire } from './batch-steps';
import { subscriptionStepFromWire, subscriptionStepToWire } from './subscription-steps';
import { deskStepFromWire, deskStepToWire } from './desk-steps';

const ns = 'energy.rental.commands.';

/** Avro wraps a union of records as `{ "<full record name>": record }`. */
type WireBody = Record<string, Record<string, unknown>>;

export interface WireCommand {
  command_id: string;
  account_id: string;
  issued_at: bigint;
  deadline_at: bigint | null;
  reply_to: string | null;
  energy_price_5m_sun?: bigint | null;
  body: WireBody;
}

const optLong = (v: number | bigint | null) => (v === null ? null : BigInt(v));
const optNumber = (v: bigint | number | null) => (v === null ? null : Number(v));
const txToWire = (t: SignedTxFact) => ({ kind: t.kind, from: t.from, amount: BigInt(t.amount), sun: BigInt(t.sun), tx_id: t.txId, signed_tx: t.signedTx });
const txFromWire = (t: Record<string, any>): SignedTxFact => ({ kind: t.kind, from: t.from, amount: Number(t.amount), sun: t.sun, txId: t.tx_id, signedTx: t.signed_tx });

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
    case 'api_key.issue':
      return { [`${ns}IssueApiKey`]: { key_id: body.keyId, name: body.name, scopes: body.scopes, secret_enc: body.secretEnc, max_active: body.maxActive } };
    case 'api_key.revoke':
      return { [`${ns}RevokeApiKey`]: { key_id: body.keyId } };
    case 'webhook.create':
      return { [`${ns}CreateWebhook`]: { endpoint_id: body.endpointId, url: body.url, role: body.role, events: body.events, secret_sealed: body.secretSealed } };
    case 'webhook.update':
      return {
        [`${ns}UpdateWebhook`]: {
          endpoint_id: body.endpointId, url: body.url, role: body.role, set_events: body.setEvents, events: body.events, is_active: body.isActive, secret_sealed: body.secretSealed,
        },
      };
    case 'webhook.delete':
      return { [`${ns}DeleteWebhook`]: { endpoint_id: body.endpointId } };
    case 'deposit_address.assign':
      return { [`${ns}AssignDepositAddress`]: { address: body.address, derivation_index: body.derivationIndex, reason: body.reason } };
    case 'balance.adjust':
      return { [`${ns}AdjustBalance`]: { amount_sun: BigInt(body.amountSun), memo: body.memo } };
    case 'deposit.credit':
      return {
        [`${ns}CreditDeposit`]: {
          deposit_id: body.depositId, asset: body.asset, address: body.address, sender: body.sender, txid: body.txid, log_index: body.logIndex,
          block_number: BigInt(body.blockNumber), block_timestamp: BigInt(body.blockTimestamp), amount: BigInt(body.amount),
          confirmations_required: body.confirmationsRequired, rate_sun: body.rateSun === null ? null : BigInt(body.rateSun),
          rate_source: body.rateSource, spread_bps: body.spreadBps, usdt_min: BigInt(body.usdtMin), usdt_max: BigInt(body.usdtMax),
          min_deposit_sun: BigInt(body.minDepositSun),
        },
      };
    case 'deposit.release':
      return {
        [`${ns}ReleaseDeposit`]: {
          deposit_id: body.depositId, reason: body.reason, rate_sun: body.rateSun === null ? null : BigInt(body.rateSun),
          rate_source: body.rateSource, spread_bps: body.spreadBps, memo: body.memo,
        },
      };
    case 'command.refused':
      return { [`${ns}CommandRefused`]: { refused_command_id: body.refusedCommandId, reason: body.reason } };
    case 'account.set_low_balance_alert':
      return { [`${ns}SetLowBalanceAlert`]: { threshold_sun: body.thresholdSun === null ? null : BigInt(body.thresholdSun) } };
    case 'order.create':
      return {
        [`${ns}CreateOrder`]: {
          client_order_id: body.clientOrderId, idempotency_key: body.idempotencyKey, request_hash: body.requestHash, resource: body.resource,
          amount: optLong(body.amount), tier: body.tier, duration_seconds: body.durationSeconds, receiver: body.receiver,
          receiver_active: body.receiverActive, activate: body.activate, max_price_sun: optLong(body.maxPriceSun), quote_id: body.quoteId,
          quote_expires_at: optLong(body.quoteExpiresAt), price_sun_per_unit: optLong(body.priceSunPerUnit), pay_sun: BigInt(body.paySun),
          activate_sun: BigInt(body.activateSun), source: body.source, memo: body.memo, supplier: body.supplier, batch_id: body.batchId ?? null,
          subscription_id: body.subscriptionId ?? null,
          for_transfer: body.forTransfer ? {
            to: body.forTransfer.to, amount: body.forTransfer.amount, token: body.forTransfer.token, energy_needed: BigInt(body.forTransfer.energyNeeded),
            energy_available: BigInt(body.forTransfer.energyAvailable), min_amount: BigInt(body.forTransfer.minAmount), max_amount: BigInt(body.forTransfer.maxAmount),
            routing_fee_bps: body.forTransfer.routingFeeBps,
          } : null,
        },
      };
    case 'order.allocate':
      return { [`${ns}AllocateOrder`]: { order_id: body.orderId, txs: body.txs.map(txToWire), ratio_limit: BigInt(body.ratioLimit), ratio_weight: BigInt(body.ratioWeight) } };
    case 'order.settle':
      return { [`${ns}SettleOrder`]: { order_id: body.orderId, landed_tx_ids: body.landedTxIds, delivered_at: BigInt(body.deliveredAt), stranded_tx_ids: body.strandedTxIds ?? [] } };
    case 'order.close':
      return {
        [`${ns}CloseOrder`]: {
          order_id: body.orderId, step: body.step, reason: body.reason, txs: body.txs.map(txToWire), idempotency_key: body.idempotencyKey, at: BigInt(body.at), replaces: body.replaces,
        },
      };
    case 'order.refund':
      return { [`${ns}RefundOrder`]: { order_id: body.orderId, reason: body.reason, undelivered: body.undelivered ?? false } };
    case 'promo.configure':
      return {
        [`${ns}ConfigurePromo`]: {
          on: body.on, token_id: body.tokenId, token_name: body.tokenName, drop_address: body.dropAddress, starts_at: optLong(body.startsAt),
          ends_at: optLong(body.endsAt), cap_per_day: body.capPerDay, grant_energy: BigInt(body.grantEnergy), grant_seconds: BigInt(body.grantSeconds),
          forward_address: body.forwardAddress,
        },
      };
    case 'promo.redeem':
      return { [`${ns}RedeemPromo`]: { address: body.address, method: body.method, forward_tx_id: body.forwardTxId } };
    case 'promo.grant':
      return {
        [`${ns}GrantPromo`]: {
          address: body.address, step: body.step, tx_id: body.txId, signed_tx: body.signedTx, pool_address: body.poolAddress,
          stake_sun: optLong(body.stakeSun), at: BigInt(body.at), failure: body.failure,
        },
      };
    case 'promo.dev_code':
      return {
        [`${ns}ClaimDevCode`]: {
          address: body.address, code: body.code, fee_bps: body.feeBps, duration_days: body.durationDays, activate_by: optLong(body.activateBy),
        },
      };
    case 'promo.dev_code_enter':
      return { [`${ns}EnterDevCode`]: { code: body.code, target_account_id: body.targetAccountId } };
    case 'batch.create':
    case 'batch.cancel':
    case 'batch.item':
    case 'batch.complete':
    case 'batch.items':
      return { [`${ns}BatchStep`]: { ...batchStepToWire(body) } };
    case 'member.set':
      return { [`${ns}SetMember`]: { address: body.address, role: body.role } };
    case 'member.remove':
      return { [`${ns}RemoveMember`]: { address: body.address } };
    case 'address_book.save':
      return { [`${ns}SaveAddressBookEntry`]: { entry_id: body.entryId, address: body.address, label: body.label, limit: body.limit } };
    case 'address_book.delete':
      return { [`${ns}DeleteAddressBookEntry`]: { entry_id: body.entryId } };
    case 'subscription.create':
    case 'subscription.update':
    case 'subscription.end':
    case 'subscription.refill':
    case 'subscription.resume':
    case 'subscription.charge':
    case 'subscription.pause':
      return { [`${ns}SubscriptionStep`]: { ...subscriptionStepToWire(body) } };
    case 'order.deliver':
      return { [`${ns}DeliverOrder`]: { order_id: body.orderId, step: body.step, tx_ids: body.txIds, at: BigInt(body.at) } };
    case 'desk.payment':
    case 'desk.return':
      return { [`${ns}DeskStep`]: { ...deskStepToWire(body) } };
    case 'order.allocations':
      return {
        [`${ns}AllocateOrders`]: {
          entries: body.entries.map((e) => ({
            order_id: e.orderId, txs: e.txs.map(txToWire), ratio_limit: BigInt(e.ratioLimit), ratio_weight: BigInt(e.ratioWeight), broadcast: e.broadcast,
          })),
        },
      };
    case 'order.settlements':
      return {
        [`${ns}SettleOrders`]: {
          entries: body.entries.map((e) => ({
            order_id: e.orderId, landed_tx_ids: e.landedTxIds, delivered_at: BigInt(e.deliveredAt), stranded_tx_ids: e.strandedTxIds ?? [],
          })),
        },
      };
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
    case 'IssueApiKey':
      return { type: 'api_key.issue', keyId: value.key_id, name: value.name, scopes: value.scopes, secretEnc: value.secret_enc, maxActive: value.max_active };
    case 'RevokeApiKey':
      return { type: 'api_key.revoke', keyId: value.key_id };
    case 'CreateWebhook':
      return { type: 'webhook.create', endpointId: value.endpoint_id, url: value.url, role: value.role, events: value.events, secretSealed: value.secret_sealed };
    case 'UpdateWebhook':
      return {
        type: 'webhook.update', endpointId: value.endpoint_id, url: value.url, role: value.role, setEvents: value.set_events, events: value.events,
        isActive: value.is_active, secretSealed: value.secret_sealed,
      };
    case 'DeleteWebhook':
      return { type: 'webhook.delete', endpointId: value.endpoint_id };
    case 'AssignDepositAddress':
      return { type: 'deposit_address.assign', address: value.address, derivationIndex: value.derivation_index, reason: value.reason };
    case 'AdjustBalance':
      return { type: 'balance.adjust', amountSun: value.amount_sun, memo: value.memo };
    case 'CreditDeposit':
      return {
        type: 'deposit.credit', depositId: value.deposit_id, asset: value.asset, address: value.address, sender: value.sender, txid: value.txid,
        logIndex: value.log_index, blockNumber: Number(value.block_number), blockTimestamp: Number(value.block_timestamp), amount: BigInt(value.amount),
        confirmationsRequired: value.confirmations_required, rateSun: value.rate_sun === null ? null : BigInt(value.rate_sun),
        rateSource: value.rate_source, spreadBps: value.spread_bps, usdtMin: BigInt(value.usdt_min), usdtMax: BigInt(value.usdt_max),
        minDepositSun: BigInt(value.min_deposit_sun),
      };
    case 'ReleaseDeposit':
      return {
        type: 'deposit.release', depositId: value.deposit_id, reason: value.reason, rateSun: value.rate_sun === null ? null : BigInt(value.rate_sun),
        rateSource: value.rate_source, spreadBps: value.spread_bps, memo: value.memo,
      };
    case 'CommandRefused':
      return { type: 'command.refused', refusedCommandId: value.refused_command_id, reason: value.reason };
    case 'SetLowBalanceAlert':
      return { type: 'account.set_low_balance_alert', thresholdSun: value.threshold_sun };
    case 'CreateOrder':
      return {
        type: 'order.create', clientOrderId: value.client_order_id, idempotencyKey: value.idempotency_key, requestHash: value.request_hash,
        resource: value.resource, amount: optNumber(value.amount), tier: value.tier, durationSeconds: value.duration_seconds, receiver: value.receiver,
        receiverActive: value.receiver_active, activate: value.activate, maxPriceSun: value.max_price_sun, quoteId: value.quote_id,
        quoteExpiresAt: optNumber(value.quote_expires_at), priceSunPerUnit: value.price_sun_per_unit, paySun: value.pay_sun,
        activateSun: value.activate_sun, source: value.source, memo: value.memo, supplier: value.supplier, batchId: value.batch_id ?? null,
        subscriptionId: value.subscription_id ?? null,
        ...(value.for_transfer ? {
          forTransfer: {
            to: value.for_transfer.to, amount: value.for_transfer.amount, token: value.for_transfer.token, energyNeeded: Number(value.for_transfer.energy_needed),
            energyAvailable: Number(value.for_transfer.energy_available), minAmount: Number(value.for_transfer.min_amount), maxAmount: Number(value.for_transfer.max_amount),
            routingFeeBps: value.for_transfer.routing_fee_bps,
          },
        } : {}),
      };
    case 'AllocateOrder':
      return { type: 'order.allocate', orderId: value.order_id, txs: value.txs.map(txFromWire), ratioLimit: value.ratio_limit, ratioWeight: value.ratio_weight };
    case 'SettleOrder':
      return {
        type: 'order.settle', orderId: value.order_id, landedTxIds: value.landed_tx_ids, deliveredAt: Number(value.delivered_at),
        ...(value.stranded_tx_ids?.length ? { strandedTxIds: value.stranded_tx_ids } : {}),
      };
    case 'CloseOrder':
      return {
        type: 'order.close', orderId: value.order_id, step: value.step, reason: value.reason, txs: value.txs.map(txFromWire),
        idempotencyKey: value.idempotency_key, at: Number(value.at), replaces: value.replaces ?? [],
      };
    case 'RefundOrder':
      return { type: 'order.refund', orderId: value.order_id, reason: value.reason, undelivered: value.undelivered ?? false };
    case 'ConfigurePromo':
      return {
        type: 'promo.configure', on: value.on, tokenId: value.token_id, tokenName: value.token_name, dropAddress: value.drop_address,
        startsAt: optNumber(value.starts_at), endsAt: optNumber(value.ends_at), capPerDay: value.cap_per_day, grantEnergy: Number(value.grant_energy),
        grantSeconds: Number(value.grant_seconds), forwardAddress: value.forward_address,
      };
    case 'RedeemPromo':
      return { type: 'promo.redeem', address: value.address, method: value.method, forwardTxId: value.forward_tx_id };
    case 'GrantPromo':
      return {
        type: 'promo.grant', address: value.address, step: value.step, txId: value.tx_id, signedTx: value.signed_tx, poolAddress: value.pool_address,
        stakeSun: value.stake_sun === null ? null : BigInt(value.stake_sun), at: Number(value.at), failure: value.failure,
      };
    case 'ClaimDevCode':
      return {
        type: 'promo.dev_code', address: value.address, code: value.code, feeBps: value.fee_bps, durationDays: value.duration_days,
        activateBy: optNumber(value.activate_by),
      };
    case 'EnterDevCode':
      return { type: 'promo.dev_code_enter', code: value.code, targetAccountId: value.target_account_id };
    case 'BatchStep':
      return batchStepFromWire(value as never);
    case 'SetMember':
      return { type: 'member.set', address: value.address, role: value.role };
    case 'RemoveMember':
      return { type: 'member.remove', address: value.address };
    case 'SaveAddressBookEntry':
      return { type: 'address_book.save', entryId: value.entry_id, address: value.address, label: value.label, limit: value.limit };
    case 'DeleteAddressBookEntry':
      return { type: 'address_book.delete', entryId: value.entry_id };
    case 'SubscriptionStep':
      return subscriptionStepFromWire(value as never);
    case 'DeliverOrder':
      return { type: 'order.deliver', orderId: value.order_id, step: value.step, txIds: value.tx_ids, at: Number(value.at) };
    case 'DeskStep':
      return deskStepFromWire(value as never);
    case 'AllocateOrders':
      return {
        type: 'order.allocations',
        entries: value.entries.map((e: Record<string, any>) => ({
          orderId: e.order_id, txs: e.txs.map(txFromWire), ratioLimit: e.ratio_limit, ratioWeight: e.ratio_weight, broadcast: e.broadcast,
        })),
      };
    case 'SettleOrders':
      return {
        type: 'order.settlements',
        entries: value.entries.map((e: Record<string, any>) => ({
          orderId: e.order_id, landedTxIds: e.landed_tx_ids, deliveredAt: Number(e.delivered_at), ...(e.stranded_tx_ids?.length ? { strandedTxIds: e.stranded_tx_ids } : {}),
        })),
      };
    default:
      throw new Error(`unknown command body ${name}`);
  }
}

export function commandToWire(command: Command): WireCommand {
  const { commandId, accountId, issuedAt, deadlineAt, replyTo, energyPrice5mSun, ...body } = command;
  return {
    command_id: commandId,
    account_id: accountId,
    issued_at: BigInt(issuedAt),
    deadline_at: deadlineAt === null ? null : BigInt(deadlineAt),
    reply_to: replyTo,
    energy_price_5m_sun: energyPrice5mSun === undefined || energyPrice5mSun === null ? null : BigInt(energyPrice5mSun),
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
    // Only when set, so a command without a price reads back exactly as it was written.
    ...(wire.energy_price_5m_sun === null || wire.energy_price_5m_sun === undefined ? {} : { energyPrice5mSun: wire.energy_price_5m_sun }),
    ...bodyFromWire(wire.body),
  };
}
