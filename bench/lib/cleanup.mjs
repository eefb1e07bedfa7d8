// Clean-up, whatever happens: what the benchmark starts registers how to stop it; a signal or the overall time bound
// runs every clean-up (last registered first) before the process exits.
const cleanups = []
let cleaning

export const onCleanUp = (fn) => cleanups.push(fn)

export const cleanUp = () =>
  (cleaning ??= (async () => {
    for (const fn of cleanups.reverse()) {
      try {
        await fn()
      } catch (error) {
        console.error(`clean-up: ${error.message}`)
      }
    }
  })())

/** Ctrl-C and friends stop everything the benchmark started; the whole benchmark is bounded to 30 min per run. */
export const cleanUpOnSignalsAndTimeout = (runs) => {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping everything the benchmark started…`)
      const hard = setTimeout(() => process.exit(130), 20_000)
      hard.unref()
      void cleanUp().finally(() => process.exit(130))
    })
  }
  const overall = setTimeout(
    () => {
      console.error('the benchmark exceeded its overall time bound (30 min per run): stopping')
      void cleanUp().finally(() => process.exit(3))
    },
    30 * 60_000 * runs,
  )
  overall.unref()
}
