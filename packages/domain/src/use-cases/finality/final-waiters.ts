/** Settles waiting for their row to become final (`SETTLE_WAIT_FOR=final`), by row id. */
export class FinalWaiters {
  private readonly byRow = new Map<string, Set<() => void>>()

  /** Resolves true once the row `id` is marked final here, false after `ms`. */
  wait(id: string, ms: number): { readonly done: Promise<boolean>; readonly cancel: () => void } {
    let finish: (final: boolean) => void = () => undefined
    const done = new Promise<boolean>((resolve) => (finish = resolve))
    const set = this.byRow.get(id) ?? new Set()
    this.byRow.set(id, set)
    const onFinal = () => end(true)
    const timer = setTimeout(() => end(false), Math.max(0, ms))
    const end = (final: boolean) => {
      clearTimeout(timer)
      set.delete(onFinal)
      if (set.size === 0) this.byRow.delete(id)
      finish(final)
    }
    set.add(onFinal)
    return { done, cancel: () => end(false) }
  }

  /** Resolves the waits of these rows, just marked final. */
  markFinal(ids: ReadonlyArray<string>): void {
    for (const id of ids) for (const resolve of [...(this.byRow.get(id) ?? [])]) resolve()
  }
}
