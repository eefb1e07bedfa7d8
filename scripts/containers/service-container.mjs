// The service image in a container of its own, driven through the docker CLI (image-settles.test.mjs).
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createServer } from 'node:net'
import { promisify } from 'node:util'

const run = promisify(execFile)
const docker = process.env.DOCKER ?? (existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker')
export const serviceImage = process.env.SERVICE_IMAGE ?? 'x402-facilitator:local'

export const dockerCli = async (...args) => (await run(docker, args, { maxBuffer: 16 * 1024 * 1024 })).stdout.trim()

/**
 * Starts the image on the host network (no bridge: the engine may have none, and the service reaches anvil and
 * Postgres on this machine's loopback) with `env` and a read-only mount of `configDir` at /etc/x402-facilitator.
 */
export const startServiceContainer = async ({ name, env, configDir, args = [] }) => {
  const envArgs = Object.entries(env).flatMap(([key, value]) => ['--env', `${key}=${value}`])
  const mount = ['--volume', `${configDir}:/etc/x402-facilitator:ro`]
  await dockerCli('run', '--detach', '--name', name, '--network', 'host', ...envArgs, ...mount, serviceImage, ...args)
  const inspect = async (format) => dockerCli('inspect', '--format', format, name)
  return {
    name,
    /** The HEALTHCHECK's verdict: starting, healthy or unhealthy. */
    health: () => inspect('{{.State.Health.Status}}'),
    running: async () => (await inspect('{{.State.Running}}')) === 'true',
    /** The uid and gid the service's process (pid 1 of the container) runs as. */
    processIds: async () => {
      const status = await dockerCli('exec', name, 'cat', '/proc/1/status')
      const field = (key) => status.match(new RegExp(`^${key}:\\s+(\\d+)`, 'm'))?.[1]
      return { uid: field('Uid'), gid: field('Gid') }
    },
    logs: async () => {
      const { stdout, stderr } = await run(docker, ['logs', name], { maxBuffer: 16 * 1024 * 1024 })
      return stdout + stderr
    },
    remove: () => dockerCli('rm', '--force', '--volumes', name).catch(() => undefined),
  }
}

/** Polls `check` until it answers a value, or fails after `timeoutMs` naming `what` and the last thing seen. */
export const waitFor = async (what, check, timeoutMs) => {
  const deadline = Date.now() + timeoutMs
  let last
  for (;;) {
    last = await check().catch((error) => ({ error: String(error) }))
    if (last?.done) return last.value
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms (last: ${JSON.stringify(last)})`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

/** A port free on 127.0.0.1 now, for the service to listen on (host network). */
export const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
