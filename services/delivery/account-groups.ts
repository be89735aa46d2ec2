/**
 * The chain facts of a pass, grouped per account (issue 34, lever 1): an account's commands are applied on
 * its partition, one writer per account, so a pass's allocations (or settlements) of one account go as one
 * command. The group's id derives from the account and its orders in order: a repeat of the same entries is
 * the same command and applies once; a group of other orders is a command of its own.
 */
import { derivedId } from '../domain/ids';

export interface AccountGroup<E> {
  accountId: string;
  commandId: string;
  entries: E[];
}

/** The entries per account, in the order met, each group with its derived command id (`step` names the kind). */
export function groupPerAccount<E extends { orderId: string }>(step: string, items: Iterable<{ accountId: string; entry: E }>): Array<AccountGroup<E>> {
  const perAccount = new Map<string, E[]>();
  for (const { accountId, entry } of items) {
    const entries = perAccount.get(accountId) ?? [];
    entries.push(entry);
    perAccount.set(accountId, entries);
  }
  return [...perAccount].map(([accountId, entries]) => ({
    accountId, commandId: derivedId('command', step, accountId, ...entries.map((e) => e.orderId)), entries,
  }));
}
