// Plain JSON-RPC over a keep-alive pool: single calls and batches (chunked), for set-up, the ceiling and the checks.
import { Pool } from 'undici'

export const makeRpc = (rpcUrl, connections = 32) => {
  const url = new URL(rpcUrl)
  const pool = new Pool(url.origin, {
    connections,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    headersTimeout: 60_000,
    bodyTimeout: 60_000,
  })
  let id = 0
  const post = async (payload) => {
    const response = await pool.request({
      method: 'POST',
      path: url.pathname + url.search,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    })
    const text = await response.body.text()
    if (response.statusCode !== 200) throw new Error(`RPC HTTP ${response.statusCode}: ${text.slice(0, 200)}`)
    return JSON.parse(text)
  }
  const call = async (method, params = []) => {
    const answer = await post({ jsonrpc: '2.0', id: ++id, method, params })
    if (answer.error) throw new Error(`${method}: ${answer.error.message}`)
    return answer.result
  }
  /** calls: [[method, params]]; answers in order; a failed call throws. */
  const batch = async (calls, chunk = 200) => {
    const out = []
    for (let i = 0; i < calls.length; i += chunk) {
      const part = calls.slice(i, i + chunk).map(([method, params]) => ({ jsonrpc: '2.0', id: ++id, method, params }))
      const answers = await post(part)
      const byId = new Map(answers.map((a) => [a.id, a]))
      for (const request of part) {
        const a = byId.get(request.id)
        if (!a || a.error) throw new Error(`${request.method}: ${a?.error?.message ?? 'no answer'}`)
        out.push(a.result)
      }
    }
    return out
  }
  return { call, batch, close: () => pool.close() }
}
