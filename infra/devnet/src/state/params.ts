/**
 * Chain parameters, set to java-tron mainnet values (as reported by mainnet getchainparameters)
 * except where a devnet needs otherwise. Served by /wallet/getchainparameters and used by the
 * resource and fee rules, so clients read the very numbers the chain applies.
 */
export const PARAMS = {
  maintenanceTimeInterval: 21_600_000n,
  /** Bandwidth burned (SUN) when a new account is created without staked bandwidth. */
  createAccountFee: 100_000n,
  /** SUN per byte burned when neither staked nor free bandwidth covers a transaction. */
  transactionFee: 1_000n,
  /** SUN burned by TransferContract when it creates the receiver account. */
  createNewAccountFeeInSystemContract: 1_000_000n,
  createNewAccountBandwidthRate: 1n,
  /** SUN per unit of energy burned when staked energy does not cover a contract call. */
  energyFee: 100n,
  freeNetLimit: 600n,
  totalNetLimit: 43_200_000_000n,
  totalEnergyLimit: 180_000_000_000n,
  unfreezeDelayDays: 14n,
  /** Upper bound of a delegation lock, in 3-second slots (30 days). */
  maxDelegateLockPeriod: 864_000n,
  maxFeeLimit: 15_000_000_000n,
  totalSignNum: 5n,
} as const;

export const TRX = 1_000_000n;
/** java-tron slot length: lock periods and resource windows count in 3 s slots whatever DEVNET_BLOCK_MS is. */
export const SLOT_MS = 3_000;
/** Resources recover linearly over 24 h = 28 800 slots. */
export const WINDOW_SLOTS = 28_800;
/** Default lock (DELEGATE_PERIOD = 3 days) when lock is set with lock_period 0, in slots. */
export const DEFAULT_LOCK_SLOTS = 86_400n;
/** Per contract, java-tron adds room for the result to the bandwidth a transaction pays for. */
export const MAX_RESULT_SIZE_IN_TX = 64;

/** The list java-tron answers at /wallet/getchainparameters (the subset the devnet applies). */
export function chainParametersJson(): { chainParameter: { key: string; value?: bigint }[] } {
  const entries: [string, bigint][] = [
    ['getMaintenanceTimeInterval', PARAMS.maintenanceTimeInterval],
    ['getCreateAccountFee', PARAMS.createAccountFee],
    ['getTransactionFee', PARAMS.transactionFee],
    ['getCreateNewAccountFeeInSystemContract', PARAMS.createNewAccountFeeInSystemContract],
    ['getCreateNewAccountBandwidthRate', PARAMS.createNewAccountBandwidthRate],
    ['getEnergyFee', PARAMS.energyFee],
    ['getFreeNetLimit', PARAMS.freeNetLimit],
    ['getTotalNetLimit', PARAMS.totalNetLimit],
    ['getTotalEnergyLimit', PARAMS.totalEnergyLimit],
    ['getTotalEnergyCurrentLimit', PARAMS.totalEnergyLimit],
    ['getAllowDelegateResource', 1n],
    ['getAllowNewResourceModel', 1n],
    ['getUnfreezeDelayDays', PARAMS.unfreezeDelayDays],
    ['getMaxDelegateLockPeriod', PARAMS.maxDelegateLockPeriod],
    ['getMaxFeeLimit', PARAMS.maxFeeLimit],
    ['getTotalSignNum', PARAMS.totalSignNum],
    ['getAllowTvmFreezeV2', 1n],
    // Dynamic energy is on (per contract: getcontractinfo's contract_state.energy_factor, state/energy-factor.ts).
    ['getAllowDynamicEnergy', 1n],
  ];
  // java-tron omits a zero value (protobuf default), keeping only the key.
  return { chainParameter: entries.map(([key, value]) => (value === 0n ? { key } : { key, value })) };
}
