import { readFileSync } from 'node:fs'
const [file, fn, depth = '6'] = process.argv.slice(2)
const p = JSON.parse(readFileSync(file, 'utf8'))
const byId = new Map(p.nodes.map((n) => [n.id, n]))
const parent = new Map()
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
const hits = new Map()
for (const n of p.nodes)
  if (n.callFrame.functionName === fn) {
    const chain = []
    let id = parent.get(n.id)
    for (let i = 0; i < Number(depth) && id; i++) {
      const f = byId.get(id).callFrame
      chain.push(`${f.functionName || '(anon)'}@${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`)
      id = parent.get(id)
    }
    const key = chain.join(' < ')
    hits.set(key, (hits.get(key) ?? 0) + n.hitCount)
  }
for (const [k, v] of [...hits].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(v, k)
