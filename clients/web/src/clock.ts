/**
 * Both clocks as they run between two readings from the server. A reading
 * (ClockState) gives the remaining times at its read_time, whose clock runs,
 * and the delay still to elapse before it counts down. A reading arrives at
 * the moment it describes (on a delayed broadcast the server sends each one
 * when the public may see it, with every time shifted alike), so the page
 * counts the running side down from the moment the reading arrived, on the
 * browser's monotonic clock: nothing depends on the browser's wall clock
 * being right.
 */

export interface Reading {
  whiteMillis: number;
  blackMillis: number;
  /** "white", "black", or undefined when neither clock runs. */
  running: "white" | "black" | undefined;
  delayLeftMillis: number;
}

export class RunningClock {
  private reading: Reading | undefined;
  private seenAt = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Takes a new reading (undefined: the game is untimed, or the message had none). */
  set(reading: Reading | undefined): void {
    if (reading === undefined) return;
    this.reading = reading;
    this.seenAt = this.now();
  }

  /** Stops both clocks where they stand (the game is over). */
  stop(): void {
    if (this.reading === undefined) return;
    this.reading = this.remaining();
    if (this.reading !== undefined) this.reading.running = undefined;
  }

  get known(): boolean {
    return this.reading !== undefined;
  }

  /** The clocks now; undefined when no reading has been taken. */
  remaining(): Reading | undefined {
    const r = this.reading;
    if (r === undefined) return undefined;
    const elapsed = this.now() - this.seenAt;
    const counted = Math.max(0, elapsed - r.delayLeftMillis);
    return {
      whiteMillis: r.whiteMillis - (r.running === "white" ? counted : 0),
      blackMillis: r.blackMillis - (r.running === "black" ? counted : 0),
      running: r.running,
      delayLeftMillis: Math.max(0, r.delayLeftMillis - elapsed),
    };
  }
}
