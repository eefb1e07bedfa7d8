import { readFileSync } from 'node:fs'
import { accountOfKey } from './modules/chain/chain-family.js'
import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'

/** What the three key settings hold once decoded as text (docs/ARCHITECTURE.md §5.8). */
export interface KeySettings {
  readonly FACILITATOR_PRIVATE_KEY?: Hex
  readonly FACILITATOR_PRIVATE_KEYS?: string
  readonly FACILITATOR_PRIVATE_KEYS_FILE?: string
}

const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/

export const accountOf = (privateKey: Hex): Address => accountOfKey(privateKey)

/** One key and where it was written, for a refusal that names the place and never the key. */
interface Listed {
  readonly raw: string
  readonly place: string
}

const fileLines = (path: string): E.Either<string, ReadonlyArray<Listed>> => {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    return E.left(
      `configuration: FACILITATOR_PRIVATE_KEYS_FILE ${path} cannot be read ` +
        `(${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    )
  }
  return E.right(
    text
      .split('\n')
      .map((line, i) => ({ raw: line.trim(), place: `FACILITATOR_PRIVATE_KEYS_FILE line ${i + 1}` }))
      .filter(({ raw }) => raw !== '' && !raw.startsWith('#')),
  )
}

/**
 * The signing keys, in order: FACILITATOR_PRIVATE_KEY, then FACILITATOR_PRIVATE_KEYS (comma-separated), then the lines
 * of FACILITATOR_PRIVATE_KEYS_FILE (blank lines and `#` comments skipped); all that are set count. The first is the
 * facilitator /supported names. A malformed key or one listed twice stops start-up with one line naming where it
 * was written (and, for a repeat, its account), never the key itself.
 */
export const facilitatorKeys = (settings: KeySettings): E.Either<string, ReadonlyArray<Hex>> => {
  const fromFile =
    settings.FACILITATOR_PRIVATE_KEYS_FILE === undefined
      ? E.right([])
      : fileLines(settings.FACILITATOR_PRIVATE_KEYS_FILE)
  if (E.isLeft(fromFile)) return fromFile
  const listed: ReadonlyArray<Listed> = [
    ...(settings.FACILITATOR_PRIVATE_KEY === undefined
      ? []
      : [{ raw: settings.FACILITATOR_PRIVATE_KEY, place: 'FACILITATOR_PRIVATE_KEY' }]),
    ...(settings.FACILITATOR_PRIVATE_KEYS ?? '')
      .split(',')
      .map((raw) => raw.trim())
      .map((raw, i) => ({ raw, place: `FACILITATOR_PRIVATE_KEYS item ${i + 1}` }))
      .filter(({ raw }) => raw !== ''),
    ...fromFile.right,
  ]
  if (settings.FACILITATOR_PRIVATE_KEYS_FILE !== undefined && fromFile.right.length === 0) {
    return E.left(`configuration: FACILITATOR_PRIVATE_KEYS_FILE ${settings.FACILITATOR_PRIVATE_KEYS_FILE} holds no key`)
  }
  const keys: Hex[] = []
  const seen = new Map<Address, string>()
  for (const { raw, place } of listed) {
    if (!PRIVATE_KEY.test(raw)) return E.left(`configuration: ${place} must be a 0x-prefixed 32-byte hex private key`)
    const key: Hex = `0x${raw.slice(2)}`
    const account = accountOf(key)
    const earlier = seen.get(account)
    if (earlier !== undefined)
      return E.left(
        `configuration: ${place} repeats the key of ${earlier} (account ${account}): each key may be listed once`,
      )
    seen.set(account, place)
    keys.push(key)
  }
  return E.right(keys)
}
