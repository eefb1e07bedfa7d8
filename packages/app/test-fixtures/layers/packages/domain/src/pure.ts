// Fixture for the layer check: what the domain may import.
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
export const ok = [E.right(1), t.string]
