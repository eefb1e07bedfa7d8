/**
 * The one "wait for a state" of the app's tests: asks `probe` every `everyMs` until it answers something, failing with
 * `what` after `timeoutMs` (a bound far above any wait a busy machine makes, not a timing under test).
 */
export const waitFor = async <A>(
  what: string,
  probe: () => Promise<A | undefined>,
  timeoutMs = 30_000,
  everyMs = 100,
): Promise<A> => {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
}
