/**
 * A loop's idle wait that the rest of the process can cut short: new work (a NOTIFY, a finished
 * delivery) wakes it, also one that comes while the loop is at work (its next wait is skipped: the work
 * may have been read just before), and stopping wakes it for good so the loop ends without waiting out
 * its timer.
 */
export class Waker {
  private wakeUp: (() => void) | undefined;
  private stopped = false;
  /** A wake-up that came while the loop was not sleeping (at work): its next sleep returns at once. */
  private pending = false;

  get running(): boolean {
    return !this.stopped;
  }

  /** Waits `ms`, or less when woken; returns at once once stopped. */
  sleep(ms: number): Promise<void> {
    if (this.stopped || this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }

  wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.pending = true;
  }

  stop(): void {
    this.stopped = true;
    this.wake();
  }
}
