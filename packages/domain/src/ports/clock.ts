/** The time, injected so that rules stay pure and tests can pin it. */
export interface Clock {
  /** Unix time in whole seconds. */
  readonly nowSeconds: () => bigint
}
