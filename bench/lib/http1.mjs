// A minimal keep-alive HTTP/1.1 client for the load generator: one request at a time per connection, answers read by
// their Content-Length. The load generator shares the machine's 2 cores with the service, anvil and Postgres; undici's
// `request` cost it ≈ 300 µs a request here, this ≈ a quarter of that, which leaves the rest to what is measured.
import { connect } from 'node:net'

const HEADER_END = Buffer.from('\r\n\r\n')

/** The bytes of one request, built before the clock starts. */
export const requestBytes = ({ method, host, path, body }) => {
  const head = `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\n`
  if (body === undefined) return Buffer.from(`${head}\r\n`, 'latin1')
  const payload = Buffer.from(body, 'utf8')
  return Buffer.concat([
    Buffer.from(`${head}Content-Type: application/json\r\nContent-Length: ${payload.length}\r\n\r\n`, 'latin1'),
    payload,
  ])
}

/** Opens a connection; `send(bytes, timeoutMs)` resolves { status, body } or rejects; `alive` is false once closed. */
export const openConnection = ({ host, port }) =>
  new Promise((resolve, reject) => {
    const socket = connect({ host, port, noDelay: true })
    let buffer = Buffer.alloc(0)
    let waiting
    let timer
    const state = { alive: true }
    const settle = (error, answer) => {
      if (!waiting) return
      const { resolve: done, reject: failed } = waiting
      waiting = undefined
      clearTimeout(timer)
      if (error) failed(error)
      else done(answer)
    }
    const parse = () => {
      const end = buffer.indexOf(HEADER_END)
      if (end < 0) return
      const head = buffer.toString('latin1', 0, end)
      const length = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head)
      if (!length) {
        settle(new Error(`an answer without Content-Length: ${head.slice(0, 120)}`))
        socket.destroy()
        return
      }
      const total = end + 4 + Number(length[1])
      if (buffer.length < total) return
      const answer = { status: Number(head.slice(9, 12)), body: buffer.toString('utf8', end + 4, total) }
      buffer = buffer.subarray(total)
      settle(undefined, answer)
    }
    socket.on('data', (chunk) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk])
      if (waiting) parse()
    })
    socket.on('error', (error) => settle(error))
    socket.on('close', () => {
      state.alive = false
      settle(new Error('the service closed the connection'))
    })
    socket.once('connect', () =>
      resolve({
        get alive() {
          return state.alive
        },
        send: (bytes, timeoutMs) =>
          new Promise((done, failed) => {
            waiting = { resolve: done, reject: failed }
            timer = setTimeout(() => {
              settle(new Error(`no answer within ${timeoutMs} ms`))
              socket.destroy()
            }, timeoutMs)
            socket.write(bytes)
          }),
        close: () => socket.destroy(),
      }),
    )
    socket.once('error', reject)
  })
