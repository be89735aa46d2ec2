import type { HexAddress } from '../crypto/address';
import type { NativeContract } from './contract';

/** The contracts deployed at genesis, by address. */
export class ContractRegistry {
  private readonly byAddress = new Map<HexAddress, NativeContract>();

  add(contract: NativeContract): void {
    this.byAddress.set(contract.address, contract);
  }

  get(address: HexAddress): NativeContract | undefined {
    return this.byAddress.get(address);
  }
}
