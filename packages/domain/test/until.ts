/** Lets the event loop turn until `condition` holds (a bounded number of turns, not a wall-clock bound). */
export const until = async (condition: () => boolean, what = 'the awaited state'): Promise<void> => {
  for (let turns = 0; !condition(); turns++) {
    if (turns > 1_000_000) throw new Error(`never happened: ${what}`)
    await new Promise((resolve) => setImmediate(resolve))
  }
}
