/** What a probe answers while the state it waits for has not come: nothing, or false. */
type NotYet = undefined | false

/**
 * The one "wait for a state" of every package's tests (`@x402-facilitator/domain/test-support`): asks `probe` until it
 * answers something (not undefined, not false), every `everyMs` (0: every turn of the event loop, for in-memory fakes),
 * and fails naming `what` after `timeoutMs`, a bound far above any wait a busy machine makes, not a timing under test.
 */
export const waitFor = async <A>(
  what: string,
  probe: () => A | NotYet | Promise<A | NotYet>,
  timeoutMs = 30_000,
  everyMs = 100,
): Promise<A> => {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined && value !== false) return value
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => (everyMs === 0 ? setImmediate(resolve) : setTimeout(resolve, everyMs)))
  }
}
