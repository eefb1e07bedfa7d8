import type { Logger } from 'pino'
import type { Registry } from 'prom-client'
import type { Config } from '../config.js'
import type { ResourceStack } from '../resource-stack.js'
import { DenyListFile } from './deny-list-file.js'

export type { DenyListFile }

/** DENY_LIST_FILE read (a bad file refuses the start), then read again every DENY_LIST_RELOAD_MS until shutdown. */
export const openDenyList = async (
  config: Pick<Config, 'DENY_LIST_FILE' | 'DENY_LIST_RELOAD_MS'>,
  logger: Logger,
  registry: Registry,
  resources: ResourceStack,
): Promise<DenyListFile | undefined> => {
  if (config.DENY_LIST_FILE === undefined) return undefined
  const denyList = await DenyListFile.open(config.DENY_LIST_FILE, logger, registry)
  denyList.start(config.DENY_LIST_RELOAD_MS)
  resources.push('deny list reloads', async () => denyList.stop())
  return denyList
}
