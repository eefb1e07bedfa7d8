import { readFile } from 'node:fs/promises'
import * as E from 'fp-ts/lib/Either.js'
import { networkFileSettings } from './config/network-file.js'

/**
 * `--config FILE`: a JSON object of settings (`{"PORT": 4021, …}`, the network under `networks`:
 * config/network-file.ts) or `NAME=value` lines; the environment takes precedence over it. Every mistake of `networks`
 * is one line of the error.
 */
export const readConfigFile = async (file: string | undefined): Promise<Record<string, string>> => {
  if (file === undefined) throw new Error('--config needs a file path')
  const text = await readFile(file, 'utf8').catch(() => {
    throw new Error(`cannot read the config file ${file}`)
  })
  if (text.trimStart().startsWith('{')) {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      throw new Error(`the config file ${file} is not valid JSON`)
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new Error(`the config file ${file} must hold a JSON object`)
    const { networks, ...flat } = parsed as Record<string, unknown>
    const settings = Object.fromEntries(Object.entries(flat).map(([k, v]) => [k, String(v)]))
    if (networks === undefined) return settings
    const network = networkFileSettings(networks, file)
    if (E.isLeft(network)) throw new Error(network.left.join('\n'))
    return { ...settings, ...network.right }
  }
  const settings: Record<string, string> = {}
  for (const [i, line] of text.split('\n').entries()) {
    const trimmed = line.trim()
    if (trimmed === '' || trimmed.startsWith('#')) continue
    const eq = trimmed.indexOf('=')
    if (eq <= 0) throw new Error(`the config file ${file}, line ${i + 1}: expected NAME=value`)
    settings[trimmed.slice(0, eq).trim()] = trimmed.slice(eq + 1).trim()
  }
  return settings
}
