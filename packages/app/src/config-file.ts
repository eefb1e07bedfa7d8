import { readFile } from 'node:fs/promises'
import * as E from 'fp-ts/lib/Either.js'
import { networkEntries, type NetworkEntry } from './config/network-file.js'
import { isSolanaEntry } from './config/svm-network-config.js'

/**
 * One network with one RPC URL and one token (and the service's keys) is written as today's settings, so that the
 * environment still wins over each of them; more are passed whole as `NETWORKS` (config.ts).
 */
const asSettings = (entries: ReadonlyArray<NetworkEntry>, networks: unknown): Record<string, string> => {
  const [only] = entries
  const simple =
    only!.rpcUrls.length === 1 && only!.tokens.length === 1 && !only!.settings.FACILITATOR_PRIVATE_KEYS_FILE
  if (entries.length === 1 && simple) return { ...only!.settings, RPC_URL: only!.rpcUrls[0]!, ...only!.tokens[0] }
  return { NETWORKS: JSON.stringify(networks) }
}

/**
 * `--config FILE`: a JSON object of settings (`{"PORT": 4021, …}`, the networks under `networks`:
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
    const { networks, webhooks, ...flat } = parsed as Record<string, unknown>
    const settings = Object.fromEntries(Object.entries(flat).map(([k, v]) => [k, String(v)]))
    // docs/OPERATIONS.md, "Webhooks": endpoints and their secrets come from this file only.
    if (webhooks !== undefined) settings.WEBHOOKS = JSON.stringify(webhooks)
    if (networks === undefined) return settings
    // A Solana network's entry is read by its own settings (SOLANA_NETWORKS); the others as EVM networks.
    const all = Array.isArray(networks) ? networks : []
    const solana = all.filter(isSolanaEntry)
    if (solana.length > 0) settings.SOLANA_NETWORKS = JSON.stringify(solana)
    const evm = Array.isArray(networks) ? all.filter((entry) => !isSolanaEntry(entry)) : networks
    if (Array.isArray(evm) && evm.length === 0 && solana.length > 0) return settings
    const entries = networkEntries(evm, file)
    if (E.isLeft(entries)) throw new Error(entries.left.join('\n'))
    return { ...settings, ...asSettings(entries.right, evm) }
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
