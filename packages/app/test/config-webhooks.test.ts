import { expect } from 'chai'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { loadConfig } from '../src/config.js'
import { readConfigFile } from '../src/config-file.js'
import { signatureHeader } from '../src/webhooks/webhook-signature.js'
import { retryDelayMs } from '../src/webhooks/delivery-body.js'

const SECRET = 'a-webhook-secret-0123456789'
const KNOWN_HMAC = 'bfb430c827b40f6369a58c76a07852eb7d3891699854d6890b913dcde08533d7'

const configFile = async (content: unknown) => {
  const file = path.join(await mkdtemp(path.join(tmpdir(), 'webhooks-config-')), 'config.json')
  await writeFile(file, JSON.stringify(content))
  return file
}

/** docs/OPERATIONS.md, "Webhooks": endpoints from the config file, refused with one line that shows no secret. */
describe('webhook configuration', () => {
  it("reads the config file's webhooks: each endpoint's URL, secrets and kinds (all when absent)", async () => {
    const webhooks = [
      { url: 'https://shop.example/hooks', secrets: [SECRET], events: ['final', 'reorged'] },
      { url: 'http://127.0.0.1:9000/all', secrets: [SECRET, `${SECRET}-old`] },
    ]
    const config = loadConfig(await readConfigFile(await configFile({ webhooks })))
    if (E.isLeft(config)) throw new Error(config.left)
    expect(config.right.WEBHOOKS).to.deep.equal([
      { ...webhooks[0], payees: [], networks: [] },
      { ...webhooks[1], events: [], payees: [], networks: [] },
    ])
  })

  it('an endpoint scoped to payees (lower-cased) and networks; a malformed payee refuses the start', async () => {
    const scoped = { url: 'https://a.example', secrets: [SECRET], payees: [`0x${'AB'.repeat(20)}`], networks: ['base'] }
    const config = loadConfig(await readConfigFile(await configFile({ webhooks: [scoped] })))
    if (E.isLeft(config)) throw new Error(config.left)
    expect(config.right.WEBHOOKS).to.deep.equal([
      { ...scoped, events: [], payees: [`0x${'ab'.repeat(20)}`], networks: ['base'] },
    ])
    const bad = loadConfig(await readConfigFile(await configFile({ webhooks: [{ ...scoped, payees: ['0x12'] }] })))
    expect(E.isLeft(bad) && bad.left).to.match(/^configuration: WEBHOOKS must be/)
  })

  for (const [what, webhooks] of [
    ['an unknown kind', [{ url: 'https://a.example', secrets: [SECRET], events: ['paid'] }]],
    ['a short secret', [{ url: 'https://a.example', secrets: ['short'] }]],
    ['no secret', [{ url: 'https://a.example', secrets: [] }]],
    ['a URL not http(s)', [{ url: 'ftp://a.example', secrets: [SECRET] }]],
    [
      'one URL twice',
      [
        { url: 'https://a.example', secrets: [SECRET] },
        { url: 'https://a.example', secrets: [SECRET] },
      ],
    ],
  ] as const)
    it(`refuses ${what} in one line that shows no secret`, async () => {
      const config = loadConfig(await readConfigFile(await configFile({ webhooks })))
      if (E.isRight(config)) throw new Error('expected a configuration error')
      expect(config.left).to.match(/^configuration: WEBHOOKS must be a JSON array of/)
      expect(config.left).to.not.include(SECRET.slice(0, 10))
      expect(config.left).to.not.include('short')
    })

  it('signs Stripe-style: t=<seconds>,v1=<HMAC-SHA256 of "t.body"> per secret', () => {
    // Known answer: printf '%s' '1700000000.{"a":1}' | openssl dgst -sha256 -hmac 'a-webhook-secret-0123456789'
    const header = signatureHeader('{"a":1}', [SECRET, `${SECRET}-old`], 1_700_000_000)
    const [t, first, second] = header.split(',')
    expect(t).to.equal('t=1700000000')
    expect(first).to.equal(`v1=${KNOWN_HMAC}`)
    expect(second).to.match(/^v1=[0-9a-f]{64}$/)
    expect(second).to.not.equal(first)
  })

  it('retries after a doubling wait, capped, less a random quarter at most', () => {
    const none = () => 0
    expect([1, 2, 3, 4].map((attempts) => retryDelayMs(attempts, 1_000, 5_000, none))).to.deep.equal([
      1_000, 2_000, 4_000, 5_000,
    ])
    expect(retryDelayMs(10_000, 1_000, 3_600_000, none)).to.equal(3_600_000)
    expect(retryDelayMs(3, 1_000, 5_000, () => 0.5)).to.equal(3_500)
    const waits = Array.from({ length: 200 }, () => retryDelayMs(3, 1_000, 60_000))
    expect(Math.min(...waits)).to.be.at.least(3_000)
    expect(Math.max(...waits)).to.be.at.most(4_000)
    expect(new Set(waits).size, 'spread, not one wait for all').to.be.greaterThan(10)
  })
})
