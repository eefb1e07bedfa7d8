import * as E from 'fp-ts/lib/Either.js'
import type { EvmAddress as Address } from '@x402-facilitator/domain'

const ADDRESS = /^0x[0-9a-fA-F]{40}$/

/** Why a deny list's text was refused: its line (1-based; 0: the whole file) and reason. */
export interface DenyListFault {
  readonly line: number
  readonly reason: string
}

/**
 * DENY_LIST_FILE's format (docs/OPERATIONS.md "Screening"): one address per line (`0x` and 40 hex digits, any case),
 * `#` starts a comment (a whole line, or after the address), blank lines skipped. A file with no character but
 * whitespace is refused, never read as "nobody denied": a truncated or half-written file must not clear the list. To
 * clear it on purpose, leave at least one `#` comment line.
 */
export const parseDenyList = (text: string): E.Either<DenyListFault, ReadonlySet<Address>> => {
  if (text.trim() === '')
    return E.left({
      line: 0,
      reason: 'the file is empty (to deny nobody on purpose, keep a "#" comment line in it)',
    })
  const denied = new Set<Address>()
  const lines = text.split('\n')
  for (const [index, raw] of lines.entries()) {
    const line = raw.replace(/#.*$/, '').trim()
    if (line === '') continue
    if (!ADDRESS.test(line))
      return E.left({ line: index + 1, reason: `"${line.slice(0, 60)}" is not an address (0x and 40 hex digits)` })
    denied.add(line.toLowerCase() as Address)
  }
  return E.right(denied)
}

/** One line naming the file, the line and the reason. */
export const describeFault = (file: string, fault: DenyListFault): string =>
  `DENY_LIST_FILE ${file}${fault.line === 0 ? '' : ` line ${fault.line}`}: ${fault.reason}`
