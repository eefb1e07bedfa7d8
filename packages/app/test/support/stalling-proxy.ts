import net from 'node:net'

/**
 * A TCP proxy in front of Postgres that can lose answers: once armed, the first statement whose SQL matches is let
 * through to Postgres (which runs and commits it), and from then on nothing Postgres says reaches any client until
 * `release()`. That is a commit whose answer never came back: the fault a timeout or a connection lost mid-call leaves.
 */
export interface StallingProxy {
  readonly port: number
  /** Stall every answer from the moment a statement matching `sql` is sent. */
  readonly arm: (sql: RegExp) => void
  /** Whether a matching statement has been sent since `arm`. */
  readonly tripped: () => boolean
  /** Let answers through again (what was held back is delivered). */
  readonly release: () => void
  readonly close: () => Promise<void>
}

/**
 * Reads the frontend messages of one connection: the untyped start-up message first, then `type, int32 length, body`.
 */
const frontendMessages = (onMessage: (type: string, body: Buffer) => void) => {
  let buffered = Buffer.alloc(0)
  let started = false
  return (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk])
    for (;;) {
      const header = started ? 5 : 4
      if (buffered.length < header) return
      const length = buffered.readInt32BE(started ? 1 : 0)
      const total = (started ? 1 : 0) + length
      if (buffered.length < total) return
      if (started) onMessage(String.fromCharCode(buffered[0]!), buffered.subarray(5, total))
      else if (buffered.readInt32BE(4) !== 80877103) started = true // an SSLRequest is followed by the real start-up
      buffered = buffered.subarray(total)
    }
  }
}

const cString = (body: Buffer, from: number): [string, number] => {
  const end = body.indexOf(0, from)
  return [body.subarray(from, end).toString('utf8'), end + 1]
}

export const startStallingProxy = async (target: { host: string; port: number }): Promise<StallingProxy> => {
  /** Prepared statement names → their SQL, as Parse messages told (the journal names them once per process). */
  const statements = new Map<string, string>()
  let armed: RegExp | undefined
  let stalled = false
  const held: Array<() => void> = []
  const sockets = new Set<net.Socket>()

  const sqlOf = (type: string, body: Buffer): string | undefined => {
    if (type === 'Q') return cString(body, 0)[0]
    if (type === 'P') {
      const [name, next] = cString(body, 0)
      const [text] = cString(body, next)
      statements.set(name, text)
      return text
    }
    if (type === 'B') {
      const [, next] = cString(body, 0)
      return statements.get(cString(body, next)[0])
    }
    return undefined
  }

  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => undefined)
    }
    const read = frontendMessages((type, body) => {
      const sql = sqlOf(type, body)
      if (armed !== undefined && sql !== undefined && armed.test(sql)) {
        armed = undefined
        stalled = true
      }
    })
    client.on('data', (chunk: Buffer) => {
      read(chunk)
      upstream.write(chunk)
    })
    upstream.on('data', (chunk: Buffer) => {
      if (stalled) held.push(() => client.write(chunk))
      else client.write(chunk)
    })
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port')
  return {
    port: address.port,
    arm: (sql) => {
      armed = sql
    },
    tripped: () => stalled,
    release: () => {
      stalled = false
      for (const deliver of held.splice(0)) deliver()
    },
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
