/** Things started in order, stopped in reverse: a failed start-up or a shutdown leaves nothing running. */
export class ResourceStack {
  private readonly stops: Array<{ name: string; stop: () => Promise<void> }> = []

  push(name: string, stop: () => Promise<void>): void {
    this.stops.push({ name, stop })
  }

  async unwind(onError: (name: string, error: unknown) => void): Promise<void> {
    for (const { name, stop } of this.stops.splice(0).reverse()) {
      try {
        await stop()
      } catch (error) {
        onError(name, error)
      }
    }
  }
}
