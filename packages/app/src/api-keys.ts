import { readFile } from 'node:fs/promises'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import type { Config } from './config.js'

/** The API keys, and the payees each may settle `upto` for. */
export interface ApiKeys {
  readonly keys: ReadonlyArray<string>
  readonly uptoPayees: ReadonlyMap<string, ReadonlyArray<Address>>
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/

/**
 * One line of API_KEYS_FILE: `<key>`, or `<key> upto=<payTo>[,<payTo>…]` naming the payees the key may settle `upto`
 * for (whoever settles `upto` picks the amount charged). A mistake refuses the start naming its line, never the key.
 */
const parseLine = (file: string, line: string, number: number): { key: string; upto: Address[] } => {
  const [key, ...options] = line.split(/\s+/)
  const upto: Address[] = []
  for (const option of options) {
    const payees = /^upto=(.+)$/.exec(option)?.[1]?.split(',')
    const bad = payees === undefined ? option.split('=')[0] : payees.find((p) => !ADDRESS.test(p))
    if (payees === undefined || bad !== undefined) {
      const what = payees === undefined ? `unknown option "${bad}"` : `"${bad}" is not an address`
      throw new Error(`configuration: API_KEYS_FILE ${file} line ${number}: ${what} (expected upto=0x…[,0x…])`)
    }
    upto.push(...payees.map((p) => p.toLowerCase() as Address))
  }
  return { key: key!, upto }
}

/** API_KEYS and the lines of API_KEYS_FILE (blank lines and `#` comments skipped); none: keys are off. */
export const loadApiKeys = async (config: Config): Promise<ApiKeys> => {
  const file = config.API_KEYS_FILE
  const lines =
    file === undefined
      ? []
      : (
          await readFile(file, 'utf8').catch(() => {
            throw new Error(`configuration: API_KEYS_FILE ${file} cannot be read`)
          })
        )
          .split('\n')
          .map((line, index) => ({ line: line.trim(), number: index + 1 }))
          .filter(({ line }) => line !== '' && !line.startsWith('#'))
          .map(({ line, number }) => parseLine(file!, line, number))
  const uptoPayees = new Map(lines.filter((l) => l.upto.length > 0).map((l) => [l.key, l.upto] as const))
  return { keys: [...(config.API_KEYS ?? []), ...lines.map((l) => l.key)], uptoPayees }
}
