import type { InternalTx } from '../actuators/tx-records';
import type { Block, StoredTx } from '../chain/block';
import type { Chain } from '../chain/chain';
import { ADDRESS_FIELDS } from '../tx/contracts';
import { toBase58, type HexAddress } from '../crypto/address';
import type { Account, StateView } from '../state/accounts';
import { PARAMS, SLOT_MS, TRX, WINDOW_SLOTS } from '../state/params';
import { energyUsed, freeNetUsed, netUsed, resourceLimit } from '../state/resources';
import { rawDataJson } from '../tx/transaction';

/** Drops the fields protobuf's JSON printer leaves out: zero, false, empty. */
function compact(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined || v === 0n || v === 0 || v === false || v === '' || (Array.isArray(v) && v.length === 0)) continue;
    out[k] = v;
  }
  return out;
}

export const shownAddress = (a: HexAddress, visible: boolean) => (visible ? toBase58(a) : a);

/** Operations bitmap java-tron gives the default active permission. */
const ACTIVE_OPERATIONS = '7fff1fc0033efb0f000000000000000000000000000000000000000000000000';

export function accountJson(chain: Chain, a: Account, visible: boolean): Record<string, unknown> {
  const slot = chain.slotOf(chain.head().timestamp);
  const msOfSlot = (s: number) => BigInt(chain.genesisMs + s * SLOT_MS);
  const addr = shownAddress(a.address, visible);
  const key = [{ address: addr, weight: 1n }];
  return compact({
    address: addr,
    balance: a.balance,
    create_time: BigInt(a.createTime),
    latest_opration_time: BigInt(a.latestOperationTime),
    type: a.isContract ? 'Contract' : undefined,
    free_net_usage: freeNetUsed(a, slot),
    latest_consume_free_time: a.latestConsumeFreeSlot ? msOfSlot(a.latestConsumeFreeSlot) : undefined,
    net_usage: netUsed(a, slot),
    latest_consume_time: a.latestConsumeSlot ? msOfSlot(a.latestConsumeSlot) : undefined,
    net_window_size: BigInt(WINDOW_SLOTS),
    net_window_optimized: true,
    frozenV2: [compact({ amount: a.frozenBandwidth }), compact({ type: 'ENERGY', amount: a.frozenEnergy }), { type: 'TRON_POWER' }],
    unfrozenV2: a.unfrozen.map((u) => compact({ type: u.resource === 'ENERGY' ? 'ENERGY' : undefined, unfreeze_amount: u.amount, unfreeze_expire_time: BigInt(u.expireTime) })),
    delegated_frozenV2_balance_for_bandwidth: a.delegatedBandwidth,
    acquired_delegated_frozenV2_balance_for_bandwidth: a.acquiredBandwidth,
    account_resource: compact({
      energy_usage: energyUsed(a, slot),
      latest_consume_time_for_energy: a.latestConsumeSlotForEnergy ? msOfSlot(a.latestConsumeSlotForEnergy) : undefined,
      energy_window_size: BigInt(WINDOW_SLOTS),
      energy_window_optimized: true,
      delegated_frozenV2_balance_for_energy: a.delegatedEnergy,
      acquired_delegated_frozenV2_balance_for_energy: a.acquiredEnergy,
    }),
    owner_permission: { permission_name: 'owner', threshold: 1n, keys: key },
    active_permission: [{ type: 'Active', id: 2, permission_name: 'active', threshold: 1n, operations: ACTIVE_OPERATIONS, keys: key }],
  });
}

/** /wallet/getaccountresource (AccountResourceMessage). */
export function accountResourceJson(chain: Chain, view: StateView, a: Account): Record<string, unknown> {
  const slot = chain.slotOf(chain.head().timestamp);
  const energyWeight = view.weight('ENERGY');
  const netWeight = view.weight('BANDWIDTH');
  return compact({
    freeNetUsed: freeNetUsed(a, slot),
    freeNetLimit: PARAMS.freeNetLimit,
    NetUsed: netUsed(a, slot),
    NetLimit: resourceLimit(view, a, 'BANDWIDTH'),
    TotalNetLimit: PARAMS.totalNetLimit,
    TotalNetWeight: netWeight,
    TotalTronPowerWeight: energyWeight + netWeight,
    tronPowerLimit: (a.frozenEnergy + a.delegatedEnergy + a.frozenBandwidth + a.delegatedBandwidth) / TRX,
    EnergyUsed: energyUsed(a, slot),
    EnergyLimit: resourceLimit(view, a, 'ENERGY'),
    TotalEnergyLimit: PARAMS.totalEnergyLimit,
    TotalEnergyWeight: energyWeight,
  });
}

function contractWithVisibleAddresses(rawData: Record<string, unknown>): void {
  for (const contract of rawData.contract as { parameter: { value: Record<string, unknown> } }[]) {
    const value = contract.parameter.value;
    for (const field of ADDRESS_FIELDS) {
      if (typeof value[field] === 'string') value[field] = toBase58(value[field] as string);
    }
  }
}

export function txJson(tx: StoredTx, visible: boolean): Record<string, unknown> {
  const rawData = rawDataJson(tx.raw);
  if (visible) contractWithVisibleAddresses(rawData);
  const out: Record<string, unknown> = {
    ret: [{ contractRet: tx.outcome.contractRet }],
    signature: tx.signatures,
    txID: tx.txid,
    raw_data: rawData,
    raw_data_hex: tx.rawHex,
  };
  if (visible) out.visible = true;
  return out;
}

/** An unsigned transaction as the create endpoints answer it. */
export function unsignedTxJson(raw: StoredTx['raw'], txid: string, rawHex: string, visible: boolean): Record<string, unknown> {
  const rawData = rawDataJson(raw);
  if (visible) contractWithVisibleAddresses(rawData);
  return { visible, txID: txid, raw_data: rawData, raw_data_hex: rawHex };
}

const NOTE_CALL = Buffer.from('call', 'utf8').toString('hex');

/**
 * protocol.InternalTransaction as JsonFormat prints it: bytes as hex (note "call" too), addresses
 * base58 when visible; a TRX-only call has one callValueInfo, `{}` when it carried nothing.
 */
function internalTxJson(it: InternalTx, visible: boolean): Record<string, unknown> {
  return compact({
    hash: it.hash,
    caller_address: shownAddress(it.caller, visible),
    transferTo_address: shownAddress(it.to, visible),
    callValueInfo: [compact({ callValue: it.value })],
    note: NOTE_CALL,
    rejected: it.rejected,
  });
}

/**
 * TransactionInfo; only for a transaction already in a block. Log addresses are 20 bytes without the
 * 41 prefix, as the TVM records them; with visible, java-tron's servlet prefixes them and prints
 * base58 (Util.convertLogAddressToTronAddress), as it prints contract_address.
 */
export function txInfoJson(tx: StoredTx, visible = false): Record<string, unknown> {
  const o = tx.outcome;
  const isCall = tx.raw.contract.type === 'TriggerSmartContract';
  return compact({
    id: tx.txid,
    fee: o.fee,
    blockNumber: BigInt(tx.blockNumber ?? 0),
    blockTimeStamp: BigInt(tx.blockTimestamp ?? 0),
    contractResult: [o.contractResult],
    contract_address: o.contractAddress ? shownAddress(o.contractAddress, visible) : undefined,
    receipt: compact({
      energy_usage: o.energyUsage,
      energy_fee: o.energyFee,
      energy_usage_total: o.energyUsageTotal,
      net_usage: o.netUsage,
      net_fee: o.netFee,
      result: isCall ? o.contractRet : undefined,
      // Field 8 of java-tron's ResourceReceipt (Tron.proto), printed after result.
      energy_penalty_total: o.energyPenaltyTotal,
    }),
    log: visible ? o.logs.map((l) => ({ ...l, address: toBase58('41' + l.address) })) : o.logs,
    result: o.contractRet === 'SUCCESS' ? undefined : 'FAILED',
    // resMessage is one of JsonFormat's text fields: hex, or the text itself with visible.
    resMessage: o.resMessage ? (visible ? o.resMessage : Buffer.from(o.resMessage, 'utf8').toString('hex')) : undefined,
    unfreeze_amount: o.unfreezeAmount,
    // Blocks stored before internal transactions were recorded have none.
    internal_transactions: (o.internalTxs ?? []).map((it) => internalTxJson(it, visible)),
    withdraw_expire_amount: o.withdrawExpireAmount,
    assetIssueID: o.assetIssueId,
  });
}

export function blockJson(block: Block, detail: boolean, visible: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {
    blockID: block.id,
    block_header: {
      raw_data: compact({
        number: BigInt(block.number),
        txTrieRoot: block.txTrieRoot,
        witness_address: shownAddress(block.witness, visible),
        parentHash: block.parentHash,
        version: 32,
        timestamp: BigInt(block.timestamp),
      }),
      witness_signature: block.witnessSignature,
    },
  };
  if (detail && block.txs.length) out.transactions = block.txs.map((t) => txJson(t, visible));
  return out;
}
