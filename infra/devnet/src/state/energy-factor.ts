/**
 * Dynamic energy (TIP-491) per contract, as java-tron keeps it in ContractState.energy_factor: the extra
 * energy in units of 1/10 000 (Constant.DYNAMIC_ENERGY_FACTOR_DECIMAL), so 34 000 makes a call cost 4.4 times
 * its base energy. java-tron adds `energy × factor / 10 000` to every opcode's cost (actuator VM.play) and
 * reports the sum as `energy_penalty` (TransactionExtention) and `receipt.energy_penalty_total`, while
 * `energy_used` / `energy_usage_total` include it. The devnet sets the factor by hand (/admin/energy-factor)
 * instead of deriving it from a maintenance cycle's usage, and applies the called contract's factor to the
 * whole call (java-tron applies each contract's own factor to the opcodes run in its context).
 */
import type { HexAddress } from '../crypto/address';
import type { StateView } from './accounts';

export const ENERGY_FACTOR_DECIMAL = 10_000n;
/** Upper bound the admin call accepts (mainnet's getDynamicEnergyMaxFactor is 34 000). */
export const MAX_ENERGY_FACTOR = 1_000_000n;

const key = (contract: HexAddress) => 'energyFactor:' + contract;

export function energyFactor(view: StateView, contract: HexAddress): bigint {
  return view.prop<bigint>(key(contract)) ?? 0n;
}

export function putEnergyFactor(view: StateView, contract: HexAddress, factor: bigint): void {
  view.putProp(key(contract), factor);
}

/** The penalty java-tron adds to `energy` base energy under `factor`. */
export function energyPenalty(energy: bigint, factor: bigint): bigint {
  return (energy * factor) / ENERGY_FACTOR_DECIMAL;
}
