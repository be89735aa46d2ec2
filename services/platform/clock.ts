/**
 * Every role reads time from here, never from Date.now(), so tests can run the 5-minute tier, webhook
 * retries and expiry on a scaled or stepped clock while production runs on the real one.
 */
export interface Clock {
  /** Milliseconds since the epoch, on this clock. */
  now(): number;
  /** Real milliseconds to wait so that `ms` pass on this clock. */
  realDelay(ms: number): number;
}

/** A wait for a moment already past is no wait (a deadline gone by): never a negative timer. */
export const realClock: Clock = { now: () => Date.now(), realDelay: (ms) => Math.max(0, ms) };

/** Runs `scale` times faster than real time, starting from the real time at creation. */
export function scaledClock(scale: number, origin = Date.now()): Clock {
  if (scale === 1) return realClock;
  return {
    now: () => origin + Math.round((Date.now() - origin) * scale),
    realDelay: (ms) => Math.max(0, Math.round(ms / scale)),
  };
}

/** A clock that moves only when told to: for unit tests of time rules. */
export class SteppedClock implements Clock {
  constructor(private current: number) {}
  now(): number {
    return this.current;
  }
  realDelay(): number {
    return 0;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}
