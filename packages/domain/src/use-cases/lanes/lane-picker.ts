/** What the picker sees of a lane: its settles in flight, and whether it may settle (its replica lock is held). */
export interface LaneLoad {
  readonly inFlight: number
  readonly available: boolean
}

/**
 * docs/ARCHITECTURE.md §5.8: the least loaded available lane (fewest settles in flight); among equals, the first at or
 * after `cursor`, going round, so that equal lanes take turns. Undefined when no lane is available.
 */
export const pickLane = (lanes: ReadonlyArray<LaneLoad>, cursor: number): number | undefined => {
  let best: number | undefined
  for (let step = 0; step < lanes.length; step++) {
    const index = (cursor + step) % lanes.length
    const lane = lanes[index]!
    if (lane.available && (best === undefined || lane.inFlight < lanes[best]!.inFlight)) best = index
  }
  return best
}

/** `pickLane` with its own cursor, which moves past each lane picked. */
export const makeLanePicker = () => {
  let cursor = 0
  return (lanes: ReadonlyArray<LaneLoad>): number | undefined => {
    const picked = pickLane(lanes, cursor)
    if (picked !== undefined) cursor = (picked + 1) % lanes.length
    return picked
  }
}
