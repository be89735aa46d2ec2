/** The chain could not be read (node down, timeout, 5xx, unreadable answer): spec code 5003. */
export class ChainUnavailable extends Error {
  readonly slug = 'chain_unavailable' as const;
  constructor(message: string, override readonly cause?: unknown) {
    super(message);
    this.name = 'ChainUnavailable';
  }
}
