/**
 * The chain facts an estimate of token transfers reads (domain/estimates.ts): per request the head block
 * (the cache's key); per block the chain fees; per distinct sender its resources (getaccountresource); per
 * distinct token and receiver the receiver's balance (balanceOf); per distinct transfer the node's own
 * simulation with the real sender and amount (triggerconstantcontract transfer(address,uint256), whose
 * energy_used already holds the dynamic energy penalty). Reads of one request run concurrently and are
 * shared with every other request in the same block (block-cache.ts), so a hundred transfers from a few
 * wallets are not three hundred sequential node calls; with the node's JSON-RPC configured
 * (TRON_JSONRPC_URL) the receivers' balances not yet read in this block are one eth_call batch, so an unseen
 * transfer costs one node call (its simulation), not two. `nodeCalls` counts the reads that reached the node.
 */
import { TronWeb } from 'tronweb';
import type { ForTransferFacts } from '../domain/commands';
import { forTransferAmount, type ChainFees, type SenderResources, type Simulation, type TransferFacts, type TransferItem } from '../domain/estimates';
import { BlockCache } from './block-cache';
import { ChainUnavailable } from './errors';
import type { JsonRpc } from './json-rpc';
import { logger } from '../platform/logger';
import type { BlockHeader, ChainReader } from './reads';
import { revertReason } from './revert-reason';

/** The token address names no contract on chain (the caller's input, not the node, is at fault). */
export class NoSuchContract extends Error {
  constructor(readonly token: string) {
    super(`${token} is not a contract`);
  }
}

const word = (hex: string) => hex.padStart(64, '0');
const addressWord = (address: string) => word(TronWeb.address.toHex(address).replace(/^41/, ''));
const int = (v: unknown) => BigInt(typeof v === 'number' || typeof v === 'string' ? v : 0);
const hexText = (hex: unknown) => (typeof hex === 'string' && hex !== '' ? Buffer.from(hex, 'hex').toString('utf8') : null);
/** keccak256("balanceOf(address)")[0..4]. */
const BALANCE_OF = '70a08231';
/** After a batch the node did not answer, balances are read one by one this long before batching is tried again. */
const BATCH_RETRY_MS = 60_000;

interface PendingBalance {
  token: string;
  holder: string;
  resolve: (v: bigint) => void;
  reject: (e: unknown) => void;
}

export class TransferFactsReader {
  private readonly cache = new BlockCache();
  /** Reads that reached the node (cache misses; a batch is one), for the benchmark's calls per item. */
  nodeCalls = 0;
  /** Balances as one eth_call batch when the node's JSON-RPC is configured (the benchmark turns it off to compare). */
  batchBalances: boolean;
  private batchRetryAt = 0;

  constructor(private readonly reader: Pick<ChainReader, 'call'> & { jsonRpc?: JsonRpc }) {
    this.batchBalances = reader.jsonRpc !== undefined;
  }

  private read<T = any>(path: string, payload: Record<string, unknown> = {}): Promise<T> {
    this.nodeCalls += 1;
    return this.reader.call<T>('full', path, payload);
  }

  /** The head block the facts are read at. */
  async head(): Promise<BlockHeader> {
    this.nodeCalls += 1;
    const raw: any = await this.reader.call('full', 'getblock', { detail: false });
    const data = raw?.block_header?.raw_data;
    return { number: Number(data?.number ?? 0), id: String(raw?.blockID ?? ''), timestamp: Number(data?.timestamp ?? 0) };
  }

  fees(block: number): Promise<ChainFees> {
    return this.cache.get(block, 'fees', async () => {
      const raw = await this.read('getchainparameters');
      const value = (key: string) => int((raw.chainParameter ?? []).find((p: { key: string }) => p.key === key)?.value);
      return { energyFeeSun: value('getEnergyFee'), bandwidthFeeSun: value('getTransactionFee'), freeNetLimit: value('getFreeNetLimit') };
    });
  }

  /** Every item's facts at `block`, in item order. */
  facts(block: number, items: readonly TransferItem[]): Promise<TransferFacts[]> {
    const balances = this.tokenBalances(block, items);
    return Promise.all(items.map(async (item) => {
      const [simulation, sender, receiverTokenBalance] = await Promise.all([
        this.simulate(block, item), this.sender(block, item.from), balances.get(`bal:${item.token}:${item.to}`)!,
      ]);
      return { simulation, sender, receiverTokenBalance };
    }));
  }

  /** Each receiver's balance of its token: from the cache, or (those not read yet in this block) one batch. */
  private tokenBalances(block: number, items: readonly TransferItem[]): Map<string, Promise<bigint>> {
    const out = new Map<string, Promise<bigint>>();
    const batch = this.batchBalances && Date.now() >= this.batchRetryAt;
    const missing: PendingBalance[] = [];
    for (const { token, to } of items) {
      const key = `bal:${token}:${to}`;
      if (out.has(key)) continue;
      out.set(key, this.cache.get(block, key, () => (batch
        ? new Promise<bigint>((resolve, reject) => missing.push({ token, holder: to, resolve, reject }))
        : this.tokenBalance(token, to))));
    }
    if (missing.length > 0) void this.readBatch(missing);
    return out;
  }

  private async readBatch(missing: PendingBalance[]): Promise<void> {
    const rpc = this.reader.jsonRpc!;
    const one = (m: PendingBalance) => this.tokenBalance(m.token, m.holder).then(m.resolve, m.reject);
    let answers;
    try {
      this.nodeCalls += Math.ceil(missing.length / 100);
      answers = await rpc.ethCalls(missing.map((m) => ({ to: m.token, data: `0x${BALANCE_OF}${addressWord(m.holder)}` })));
    } catch (err) {
      // A node without JSON-RPC (or without batches): the same balances one call each, and so for a while.
      this.batchRetryAt = Date.now() + BATCH_RETRY_MS;
      logger.warn({ err }, 'the node answered no eth_call batch: token balances are read one by one');
      missing.forEach(one);
      return;
    }
    // A call the batch refused (a token that is no contract) is read alone: it answers as before (NoSuchContract).
    answers.forEach((a, i) => (a.ok ? missing[i].resolve(a.data === '0x' ? 0n : BigInt(a.data)) : one(missing[i])));
  }

  private sender(block: number, address: string): Promise<SenderResources> {
    return this.cache.get(block, `res:${address}`, async () => {
      const raw = await this.read('getaccountresource', { address });
      // java-tron answers {} for an address with no account; an account always has its free allowance.
      const activated = raw.freeNetLimit !== undefined || raw.NetLimit !== undefined || raw.EnergyLimit !== undefined;
      return {
        activated,
        energyLimit: int(raw.EnergyLimit), energyUsed: int(raw.EnergyUsed),
        freeNetLimit: int(raw.freeNetLimit), freeNetUsed: int(raw.freeNetUsed),
        netLimit: int(raw.NetLimit), netUsed: int(raw.NetUsed),
      };
    });
  }

  /** One balance by triggerconstantcontract (no JSON-RPC, or a call the batch refused). */
  private async tokenBalance(token: string, holder: string): Promise<bigint> {
    const raw = await this.constant(token, token, 'balanceOf(address)', addressWord(holder));
    const result = raw.constant_result?.[0];
    return typeof result === 'string' && result !== '' ? BigInt('0x' + result) : 0n;
  }

  private simulate(block: number, item: TransferItem): Promise<Simulation> {
    return this.cache.get(block, `sim:${item.token}:${item.from}:${item.to}:${item.amount}`, async () => {
      const raw = await this.constant(item.token, item.from, 'transfer(address,uint256)', addressWord(item.to) + word(item.amount.toString(16)));
      const data = String(raw.constant_result?.[0] ?? '');
      const failed = raw.transaction?.ret?.[0]?.ret === 'FAILED' || typeof raw.result?.message === 'string';
      return {
        ok: !failed,
        energyUsed: int(raw.energy_used),
        energyPenalty: int(raw.energy_penalty),
        failure: failed ? (revertReason(data) ?? hexText(raw.result?.message) ?? 'REVERT opcode executed') : null,
        rawDataBytes: String(raw.transaction?.raw_data_hex ?? '').length / 2,
      };
    });
  }

  /** triggerconstantcontract; a validation refusal naming no contract is the caller's bad token. */
  private async constant(contract: string, owner: string, functionSelector: string, parameter: string): Promise<any> {
    const raw: any = await this.read('triggerconstantcontract', { owner_address: owner, contract_address: contract, function_selector: functionSelector, parameter });
    if (raw.result?.code === 'CONTRACT_VALIDATE_ERROR') throw new NoSuchContract(contract);
    if (raw.result?.code) throw new ChainUnavailable(`triggerconstantcontract: ${raw.result.code} ${hexText(raw.result.message) ?? ''}`);
    return raw;
  }
}

const readers = new WeakMap<object, TransferFactsReader>();

/** The process's facts reader over `reader` (one cache per chain reader, shared by every route). */
export function transferFactsFor(reader: Pick<ChainReader, 'call'> & { jsonRpc?: JsonRpc }): TransferFactsReader {
  let found = readers.get(reader);
  if (!found) readers.set(reader, (found = new TransferFactsReader(reader)));
  return found;
}

export interface ForTransferRead {
  facts: ForTransferFacts;
  /** What the processor will size the order at from `facts` (0: nothing is short). */
  amount: number;
  senderActive: boolean;
  /** Why the transfer would fail (a revert's reason); renting energy does not help then. */
  failure: string | null;
}

/**
 * The facts a `for_transfer` order carries (POST /v1/orders, a batch item): the transfer simulated with the
 * receiver of the energy as its sender, and that sender's free energy, at the head block; the energy row's
 * bounds and the routing fee are the caller's. Throws NoSuchContract (the caller's bad token) or
 * ChainUnavailable.
 */
export async function readForTransfer(
  reader: TransferFactsReader, item: TransferItem, bounds: { minAmount: number; maxAmount: number },
): Promise<ForTransferRead> {
  const head = await reader.head();
  const [read] = await reader.facts(head.number, [item]);
  const free = read.sender.activated ? read.sender.energyLimit - read.sender.energyUsed : 0n;
  const facts: ForTransferFacts = {
    to: item.to, amount: item.amount.toString(), token: item.token, energyNeeded: Number(read.simulation.energyUsed),
    energyAvailable: Number(free > 0n ? free : 0n), minAmount: bounds.minAmount, maxAmount: bounds.maxAmount, routingFeeBps: 0,
  };
  return { facts, amount: forTransferAmount(facts), senderActive: read.sender.activated, failure: read.simulation.ok ? null : (read.simulation.failure ?? 'it reverts') };
}
