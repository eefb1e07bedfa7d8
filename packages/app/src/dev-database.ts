import { createKnex } from '@x402-facilitator/adapters-persistence'

const DEV_DATABASE = 'facilitator_dev'

/**
 * Dev mode's journal lives in the embedded server, in a database made anew at each start: the local chain is new
 * too, so rows of an earlier run point at transactions that no longer exist anywhere.
 */
export const freshDevDatabase = async (serverUrl: string): Promise<string> => {
  const admin = createKnex({ connectionString: serverUrl, poolMax: 1 })
  try {
    await admin.raw(`drop database if exists ${DEV_DATABASE} with (force)`)
    await admin.raw(`create database ${DEV_DATABASE}`)
  } finally {
    await admin.destroy()
  }
  const url = new URL(serverUrl)
  url.pathname = `/${DEV_DATABASE}`
  return url.toString()
}
