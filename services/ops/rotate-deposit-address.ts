/**
 * Support action: replace an account's deposit address with the next derived one, within the rotation
 * limits (the processor decides); the retired address keeps crediting for `retired_credit_days`.
 */
import type { CommandResult } from '../domain/command-result';
import { depositAddressAt } from '../chain/deposit-derivation';
import { nextDepositIndex } from '../api/stores/accounts';
import type { CommandBus } from '../platform/command-bus';
import type { Runtime } from '../chain/clients';

export async function rotateDepositAddress(rt: Runtime, bus: CommandBus, accountId: string): Promise<CommandResult> {
  const index = await nextDepositIndex(rt.pool);
  return bus.submit({
    type: 'deposit_address.assign', accountId, address: depositAddressAt(rt.cfg.DEPOSIT_XPUB, index), derivationIndex: index, reason: 'rotate',
  });
}
