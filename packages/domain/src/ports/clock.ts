/** The time, injected so that rules stay pure and tests can pin it. */
export interface Clock {
  readonly now: () => Date
}

export const unixSeconds = (date: Date): bigint => BigInt(Math.floor(date.getTime() / 1000))
