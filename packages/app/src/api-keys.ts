import { readFile } from 'node:fs/promises'
import type { Config } from './config.js'

/** API_KEYS and the lines of API_KEYS_FILE (blank lines and `#` comments skipped); none: keys are off. */
export const loadApiKeys = async (config: Config): Promise<ReadonlyArray<string>> => {
  const fromFile =
    config.API_KEYS_FILE === undefined
      ? []
      : (
          await readFile(config.API_KEYS_FILE, 'utf8').catch(() => {
            throw new Error(`configuration: API_KEYS_FILE ${config.API_KEYS_FILE} cannot be read`)
          })
        )
          .split('\n')
          .map((line) => line.trim())
          .filter((line) => line !== '' && !line.startsWith('#'))
  return [...(config.API_KEYS ?? []), ...fromFile]
}
