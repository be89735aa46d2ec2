/**
 * Members and roles as processor state: added, re-roled and removed by commands on the log, so a restore
 * brings them back (members sign in again with their roles). The owner is not a member row: it is the
 * account's owner address. Sessions stay off the log (a member signs in again after a restore).
 */
export type MemberRole = 'editor' | 'viewer';

export interface Member {
  accountId: string;
  address: string;
  role: MemberRole;
  addedAt: number;
}

/** What a member command may read: the account's members as of the command. */
export interface MemberView {
  memberOf(accountId: string, address: string): Member | undefined;
}
