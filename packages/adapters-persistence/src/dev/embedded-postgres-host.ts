import { execFileSync } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'
import { createServer } from 'node:net'
import path from 'node:path'

// What the embedded server needs of the machine it runs on: a free port, and as root a `postgres` user that can
// reach its data directory.

export const findFreePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port')),
      )
    })
  })

export const isRoot = (): boolean => process.getuid?.() === 0

const postgresUserIds = (): { uid: number; gid: number } | undefined => {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim())
    return { uid, gid }
  } catch {
    return undefined
  }
}

/**
 * Postgres refuses to run as root, so as root the server runs as the `postgres` user, which must be able to
 * walk down to the data directory: a 0700 parent (e.g. /root) would make initdb fail with a cryptic error.
 */
export const assertReachableByPostgres = (dataDir: string): void => {
  const ids = postgresUserIds()
  if (ids === undefined) return
  for (let dir = path.dirname(dataDir); ; dir = path.dirname(dir)) {
    if (existsSync(dir)) {
      const stat = statSync(dir)
      const mode = stat.mode
      const traversable =
        (mode & 0o001) !== 0 ||
        (stat.gid === ids.gid && (mode & 0o010) !== 0) ||
        (stat.uid === ids.uid && (mode & 0o100) !== 0)
      if (!traversable) {
        throw new Error(
          `embedded Postgres runs as the "postgres" user when started as root, and that user cannot enter ${dir} ` +
            `(mode ${(mode & 0o777).toString(8)}): choose a data directory it can reach, or "chmod o+x ${dir}"`,
        )
      }
    }
    if (path.dirname(dir) === dir) return
  }
}
