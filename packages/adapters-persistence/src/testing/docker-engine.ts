import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import http from 'node:http'

// The Docker engine testcontainers would use (DOCKER_HOST, else /var/run/docker.sock), asked over its HTTP API.
const engineAddress = (): http.RequestOptions | undefined => {
  const host = process.env.DOCKER_HOST
  if (host !== undefined && host !== '') {
    if (host.startsWith('unix://')) return { socketPath: host.slice('unix://'.length) }
    if (host.startsWith('tcp://')) {
      const url = new URL(host.replace(/^tcp:/, 'http:'))
      return { host: url.hostname, port: url.port }
    }
    return undefined
  }
  const socketPath = '/var/run/docker.sock'
  return existsSync(socketPath) ? { socketPath } : undefined
}

/** The status of a GET on the engine's API, or undefined when nothing answers within about a second. */
const engineStatus = (path: string): Promise<number | undefined> =>
  new Promise((resolve) => {
    const address = engineAddress()
    if (address === undefined) return resolve(undefined)
    const request = http.get({ ...address, path, timeout: 1_000 }, (response) => {
      response.resume()
      resolve(response.statusCode)
    })
    request.on('timeout', () => request.destroy())
    request.on('error', () => resolve(undefined))
  })

/** The JSON a GET on the engine's API answers with (a test reads what the engine runs); throws on anything else. */
export const engineJson = (path: string): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const address = engineAddress()
    if (address === undefined) return reject(new Error('no Docker engine is configured'))
    const request = http.get({ ...address, path, timeout: 10_000 }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        if (response.statusCode !== 200) return reject(new Error(`GET ${path}: ${response.statusCode} ${text}`))
        resolve(JSON.parse(text))
      })
    })
    request.on('timeout', () => request.destroy(new Error(`GET ${path}: no answer within 10 s`)))
    request.on('error', reject)
  })

/** Whether a Docker engine answers, within about a second. */
export const dockerAnswers = async (): Promise<boolean> => (await engineStatus('/_ping')) === 200

/**
 * Whether the engine has its default bridge network. An engine started with `--bridge=none` (`.ci/run`'s) has none:
 * its containers take the host network, and no test traffic goes to a bridge's private addresses.
 */
export const engineHasBridge = async (): Promise<boolean> => (await engineStatus('/networks/bridge')) === 200

// Run by `node -e`: a DELETE of the container, forced (it may still run); exit 0 once the engine answered.
const removeScript = `const [address, id] = process.argv.slice(1)
require('node:http')
  .request({ ...JSON.parse(address), method: 'DELETE', path: '/containers/' + id + '?force=true&v=true', timeout: 5000 })
  .on('response', (response) => response.resume().on('end', () => process.exit(0)))
  .on('error', () => process.exit(1))
  .on('timeout', () => process.exit(1))
  .end()`

/**
 * Removes a container synchronously, for a process `exit` hook (nothing asynchronous runs there): a short child
 * process asks the engine. Whether the engine answered.
 */
export const removeContainerSync = (id: string): boolean => {
  const address = engineAddress()
  if (address === undefined) return false
  const child = spawnSync(process.execPath, ['-e', removeScript, JSON.stringify(address), id], { timeout: 10_000 })
  return child.status === 0
}
