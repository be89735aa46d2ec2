/**
 * Who fills an order on chain. `pool`: the service's own stake (reclaimable). `provider`: a third-party
 * provider behind the same interface (its orders answer 3008 on reclaim). The provider here is the
 * test-drivable stand-in: it fills from one staked address of its own, which a real provider's API
 * client would replace. Both sign every transaction of an order against one reference block.
 */
import { lessInFlight, planDelegation, type Ratio } from './allocation';
import { poolSigners, type Signer } from './pool-keys';
import { uniqueRef, type ChainResource, type ChainWriter, type RefBlock } from './writes';
import type { SignedTxFact } from '../domain/commands';
import type { Order } from '../domain/orders/rules';
import type { Config } from '../platform/config';
import type { Pool } from '../platform/db/pool';
import { SequenceNonces, type NonceSource } from './nonces';

/** SUN sent to an inactive receiver to activate it (the chain's creation fee is paid by the sender). */
export const ACTIVATION_TRANSFER_SUN = 1n;

export interface Allocated {
  txs: SignedTxFact[];
  ratio: Ratio;
}

export interface OrderSupplier {
  /** The chain's current resource ratio, as the supplier's stake sees it. */
  ratio(resource: ChainResource): Promise<Ratio>;
  /**
   * Signs the order's activation (when `activate`: charged for it, and no other order activates the
   * receiver) and delegations; null when it cannot fill it now.
   */
  allocate(order: Order, ref: RefBlock, ratio: Ratio, activate: boolean): Promise<Allocated | null>;
  /** Signs the undelegation of every landed delegation of the order. */
  release(order: Order, ref: RefBlock): Promise<SignedTxFact[]>;
}

export function chainResource(order: Pick<Order, 'resource'>): ChainResource {
  return order.resource === 'bandwidth' ? 'BANDWIDTH' : 'ENERGY';
}

export class StakeSupplier implements OrderSupplier {
  private readonly byAddress: Map<string, Signer>;
  /** Stake promised by this process since the chain was last read, per address and resource. */
  private promised = new Map<string, bigint>();
  private available = new Map<string, Promise<bigint>>();
  /** Stake of stored delegations that may still land, per address and resource (see inFlightSun). */
  private inFlight = new Map<string, bigint>();

  constructor(
    private readonly writer: ChainWriter,
    private readonly signers: Signer[],
    /** Largest stake (SUN) of one delegation; bigger orders are split across addresses. */
    private readonly maxSunPerPart: bigint | null,
    /** Every transaction gets its own nonce (see uniqueRef): no two orders' transactions are identical. */
    private readonly nonces: NonceSource,
  ) {
    this.byAddress = new Map(signers.map((s) => [s.address, s]));
  }

  ratio(resource: ChainResource): Promise<Ratio> {
    return this.writer.ratio(this.signers[0].address, resource);
  }

  /**
   * Re-reads what each address can delegate (call once per pass), less `inFlight`: stake of delegations
   * signed in earlier passes that have not landed yet and still may.
   */
  async refresh(inFlight: Map<string, bigint> = new Map()): Promise<void> {
    this.promised.clear();
    this.available.clear();
    this.inFlight = inFlight;
  }

  /** What each address can delegate (in signer order), read once per pass; concurrent callers share the read. */
  private delegatable(resource: ChainResource): Promise<bigint[]> {
    return Promise.all(this.signers.map((s) => {
      const key = `${s.address}:${resource}`;
      if (!this.available.has(key)) {
        const reading = this.writer.delegatableSun(s.address, resource);
        this.available.set(key, reading);
        reading.catch(() => this.available.delete(key));
      }
      return this.available.get(key) as Promise<bigint>;
    }));
  }

  private async ref(ref: RefBlock): Promise<RefBlock> {
    return uniqueRef(ref, await this.nonces.next());
  }

  async allocate(order: Order, ref: RefBlock, ratio: Ratio, activate: boolean): Promise<Allocated | null> {
    const txs: SignedTxFact[] = [];
    const resource = chainResource(order);
    let parts: Array<{ from: string; amount: number; sun: bigint }> = [];
    if (order.resource !== 'activation') {
      const read = await this.delegatable(resource);
      // From here to the promise below nothing is awaited: no other order of the pass plans in between.
      const sources = this.signers.map((s, i) => ({ address: s.address, availableSun: read[i] - (this.promised.get(`${s.address}:${resource}`) ?? 0n) }));
      const plan = planDelegation(order.amount ?? 0, ratio, lessInFlight(sources, resource, this.inFlight), this.maxSunPerPart);
      if (!plan) return null;
      parts = plan;
      // Orders of one pass are signed concurrently and must not plan on the same stake (a set that then
      // fails to sign or store only leaves this pass filling less).
      for (const p of parts) {
        const key = `${p.from}:${resource}`;
        this.promised.set(key, (this.promised.get(key) ?? 0n) + p.sun);
      }
    }
    if (order.activateSun > 0n && activate) {
      const signer = this.signers[0];
      const tx = await this.writer.signTransfer(signer, order.receiver, ACTIVATION_TRANSFER_SUN, await this.ref(ref));
      txs.push({ kind: 'activate', from: signer.address, amount: 0, sun: ACTIVATION_TRANSFER_SUN, ...tx });
    }
    for (const p of parts) {
      const tx = await this.writer.signDelegate(this.byAddress.get(p.from) as Signer, order.receiver, resource, p.sun, await this.ref(ref));
      txs.push({ kind: 'delegate', from: p.from, amount: p.amount, sun: p.sun, ...tx });
    }
    return txs.length > 0 ? { txs, ratio } : null;
  }

  /**
   * Signs undelegations of `parts` (address and stake) of the order's delegations, each with its own nonce:
   * a re-signed part never repeats the bytes it replaces.
   */
  async undelegate(order: Order, parts: Array<{ from: string; sun: bigint }>, ref: RefBlock): Promise<SignedTxFact[]> {
    const txs: SignedTxFact[] = [];
    for (const u of parts) {
      const signer = this.byAddress.get(u.from);
      if (!signer) throw new Error(`no key for the stake address ${u.from}`);
      const tx = await this.writer.signUndelegate(signer, order.receiver, chainResource(order), u.sun, await this.ref(ref));
      const amount = order.allocations.find((a) => a.kind === 'delegate' && a.from === u.from && a.sun === u.sun)?.amount ?? 0;
      txs.push({ kind: 'undelegate', from: u.from, amount, sun: u.sun, ...tx });
    }
    return txs;
  }

  /** Signs the undelegation of every landed delegation of the order. */
  release(order: Order, ref: RefBlock): Promise<SignedTxFact[]> {
    return this.undelegate(order, order.allocations.filter((a) => a.kind === 'delegate' && a.landed === true), ref);
  }
}

export interface Suppliers {
  pool: StakeSupplier;
  provider: StakeSupplier;
}

/** The suppliers of the configured pool keys, signing with `writer`, nonces from PostgreSQL. */
export function orderSuppliers(cfg: Parameters<typeof poolSigners>[0] & Pick<Config, 'ORDER_MAX_DELEGATION_SUN'>, writer: ChainWriter, pool: Pool): Suppliers {
  return suppliersFor(writer, poolSigners(cfg), cfg.ORDER_MAX_DELEGATION_SUN ?? null, new SequenceNonces(pool));
}

/** The pool fills from every pool key; the stand-in provider from the last one alone, never split. */
export function suppliersFor(writer: ChainWriter, signers: Signer[], maxSunPerPart: bigint | null, nonces: NonceSource): Suppliers {
  if (signers.length === 0) throw new Error('no stake-pool keys configured');
  return { pool: new StakeSupplier(writer, signers, maxSunPerPart, nonces), provider: new StakeSupplier(writer, signers.slice(-1), null, nonces) };
}
