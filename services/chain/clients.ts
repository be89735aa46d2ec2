/** The chain clients of a process, and the Runtime: a process's connections with those clients. */
import type { Config } from '../platform/config';
import type { Connections } from '../platform/connections';
import type { Pool } from '../platform/db/pool';
import { ChainReader } from './reads';
import { orderSuppliers, type Suppliers } from './suppliers';
import { Trc10Reader } from './trc10';
import { ChainWriter } from './writes';

/**
 * The chain clients of a process, each built on first use and shared by every role and route: one reader,
 * one writer, one TRC-10 reader, and the order suppliers (the pool keys parsed once; the broadcaster
 * allocates with them, the scheduler signs undelegations). Per-role state (a role's sender, its resend
 * times and refusals) stays in the role.
 */
export interface ChainClients {
  readonly reader: ChainReader;
  readonly writer: ChainWriter;
  readonly trc10: Trc10Reader;
  readonly suppliers: Suppliers;
}

export function chainClients(cfg: Config, pool: Pool): ChainClients {
  let reader: ChainReader | undefined;
  let writer: ChainWriter | undefined;
  let trc10: Trc10Reader | undefined;
  let suppliers: Suppliers | undefined;
  return {
    get reader() {
      return (reader ??= ChainReader.fromConfig(cfg));
    },
    get writer() {
      return (writer ??= ChainWriter.fromConfig(cfg));
    },
    get trc10() {
      return (trc10 ??= Trc10Reader.fromConfig(cfg));
    },
    get suppliers() {
      return (suppliers ??= orderSuppliers(cfg, this.writer, pool));
    },
  };
}

/** What the composition root (services/runtime.ts) opens once per process. */
export interface Runtime extends Connections {
  chain: ChainClients;
}
