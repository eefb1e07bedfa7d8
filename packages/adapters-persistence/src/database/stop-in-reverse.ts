/** What a factory opened, stopped in reverse: each stop is tried even when one before it failed. */
export class StopInReverse {
  private readonly stops: Array<{ part: string; stop: () => Promise<void> }> = []

  constructor(private readonly onFailure: (part: string, error: unknown) => void = () => {}) {}

  push(part: string, stop: () => Promise<void>): void {
    this.stops.push({ part, stop })
  }

  /** Idempotent: a second call finds nothing left to stop. */
  readonly unwind = async (): Promise<void> => {
    for (const { part, stop } of this.stops.splice(0).reverse()) {
      try {
        await stop()
      } catch (error) {
        this.onFailure(part, error)
      }
    }
  }
}
