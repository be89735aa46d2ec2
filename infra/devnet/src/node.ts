import { Admission } from './chain/admission';
import type { Block } from './chain/block';
import { Chain } from './chain/chain';
import { Faults } from './chain/faults';
import type { DevnetConfig } from './config';
import { SignaturePool } from './crypto/signatures';
import { publicKeyOf } from './crypto/keys';
import { buildGenesis, genesisAccounts, genesisContracts, type GenesisAccounts } from './genesis';
import { log } from './log';
import { Persistence } from './persistence';

/**
 * One running devnet: the chain, its broadcast path, faults, persistence and block timer.
 * Routes read `node.chain` on every request, so a reset can swap the chain underneath them.
 */
export class DevnetNode {
  chain!: Chain;
  admission!: Admission;
  readonly faults = new Faults();
  readonly accounts: GenesisAccounts;
  private readonly persistence: Persistence;
  private readonly signatures: SignaturePool;
  private timer: NodeJS.Timeout | undefined;

  constructor(readonly config: DevnetConfig) {
    this.accounts = genesisAccounts(config.seed, config.customers, config.pool);
    this.persistence = new Persistence(config.dataDir, config.seed);
    const known = [this.accounts.faucet, ...this.accounts.customers, ...this.accounts.pool].map((k) => publicKeyOf(k.privateKey));
    this.signatures = new SignaturePool(config.sigWorkers, known);
    this.open();
  }

  /** Continues the chain in the data dir, or starts one from genesis. */
  private open(): void {
    const contracts = genesisContracts(this.accounts);
    let parts = this.persistence.load();
    if (!parts) {
      parts = buildGenesis(this.accounts, this.config.trxPerUsdt, Date.now());
      this.persistence.init(parts);
      log('info', 'new chain from genesis', { seed: this.config.seed, dataDir: this.config.dataDir });
    } else {
      log('info', 'chain continued from data dir', { head: parts.blocks.length - 1, dataDir: this.config.dataDir });
    }
    this.chain = new Chain(parts, contracts, this.accounts.witness, this.config.solidifyDepth);
    this.admission = new Admission(this.chain, this.signatures, this.faults, this.config.blockMs);
    // TronWeb reads block_header.raw_data.number, which block 0 leaves out: never serve it as head.
    if (this.chain.head().number === 0) this.produceBlock();
  }

  produceBlock(): Block {
    const produced = this.chain.produceBlock(Date.now());
    const { block } = produced;
    this.persistence.appendBlock(produced);
    this.persistence.maybeSnapshot(this.chain.parts(), this.config.snapshotBlocks);
    if (block.txs.length) log('info', 'block', { number: block.number, txs: block.txs.length });
    return block;
  }

  startProducing(): void {
    this.stopProducing();
    this.timer = setInterval(() => {
      try {
        this.produceBlock();
      } catch (err) {
        log('error', 'block production failed', { error: err instanceof Error ? err.stack : String(err) });
      }
    }, this.config.blockMs);
  }

  stopProducing(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Back to genesis: the data dir is wiped and the faults cleared. */
  reset(): void {
    const producing = this.timer !== undefined;
    this.stopProducing();
    this.persistence.wipe();
    this.faults.apply({ clear: true }, Date.now());
    this.open();
    if (producing) this.startProducing();
    log('info', 'chain reset to genesis');
  }

  async close(): Promise<void> {
    this.stopProducing();
    this.persistence.maybeSnapshot(this.chain.parts(), 0);
    await this.signatures.close();
  }
}
