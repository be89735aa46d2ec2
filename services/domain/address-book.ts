/**
 * The address book as processor state: entries saved and deleted by commands on the log, so a restore
 * brings them back. Unique by address per account; the limit travels in the command (the API's rule in
 * force when it accepted the request), checked here over the processor's own state so concurrent saves
 * cannot exceed it.
 */
export interface AddressBookEntry {
  id: string;
  accountId: string;
  address: string;
  label: string;
  createdAt: number;
  updatedAt: number;
}

/** What an address-book command may read: the account's entries as of the command. */
export interface AddressBookView {
  entriesOf(accountId: string): AddressBookEntry[];
}
