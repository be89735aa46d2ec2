/**
 * A loop's idle wait that the rest of the process can cut short: new work (a NOTIFY, a finished
 * delivery) wakes it, and stopping wakes it for good so the loop ends without waiting out its timer.
 */
export class Waker {
  private wakeUp: (() => void) | undefined;
  private stopped = false;

  get running(): boolean {
    return !this.stopped;
  }

  /** Waits `ms`, or less when woken; returns at once once stopped. */
  sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  wake(): void {
    this.wakeUp?.();
  }

  stop(): void {
    this.stopped = true;
    this.wake();
  }
}
