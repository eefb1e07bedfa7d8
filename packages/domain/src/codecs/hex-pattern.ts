import type { Hex } from '../model/payment.js'

/** A string that matches `pattern` is `Hex` by type as well: every pattern given here starts with `^0x`. */
export const matchesHex =
  (pattern: RegExp) =>
  (u: unknown): u is Hex =>
    typeof u === 'string' && pattern.test(u)
