import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import {
  catalogResource,
  listCatalog,
  type DiscoveryCatalog,
  type DiscoveryDeps,
  type SettleOutcome,
} from '@x402-facilitator/domain'
import { makeFakeCatalog } from '@x402-facilitator/domain/fake-discovery-catalog'
import { waitFor } from '@x402-facilitator/domain/test-support'
import { makeTestClock } from '@x402-facilitator/domain/test-clock'
import type { DiscoveryHttpDeps } from '../src/http-deps.js'
import { PAYER, postJson, v2Body } from './support/bodies.js'
import { v1BodyDeclaring, v2BodyDeclaring, weatherExtension } from './support/bazaar-bodies.js'
import { settled, valid } from './support/answer-rows.js'
import { servedNetwork, startTestApp, type TestApp } from './support/test-app.js'

interface ListAnswer {
  readonly items: Array<Record<string, unknown> & { readonly lastUpdated: string }>
  readonly pagination: { readonly total: number }
  readonly error?: string
}

const OPERATOR_TOKEN = 'operator-token-of-at-least-32-characters'

const extensionResponses = (res: Response) => {
  const header = res.headers.get('extension-responses')
  return header === null ? undefined : (JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as unknown)
}

describe('HTTP: Bazaar discovery — catalogued on settle, listed and searched, hidden by the operator', () => {
  let app: TestApp
  let catalog: DiscoveryCatalog
  let settleNext: SettleOutcome
  /** `writesAfter`: every catalog write waits for it (a slow database). */
  const start = async (discoveryOn: boolean, maxPerPayee = 10, writesAfter?: Promise<void>) => {
    catalog = makeFakeCatalog()
    const fake = catalog
    const deps: DiscoveryDeps = {
      catalog:
        writesAfter === undefined
          ? fake
          : { ...fake, record: (entry, bounds) => () => writesAfter.then(() => fake.record(entry, bounds)()) },
      clock: makeTestClock(new Date('2026-11-29T12:00:00Z')),
      maxPerPayee,
      maxAgeMs: 86_400_000,
    }
    const discovery: DiscoveryHttpDeps = {
      catalogResource: catalogResource(deps),
      // The in-memory catalog answers within the settle's own turn: no wait is ever reached (a slow one: none waited).
      catalogWaitMs: writesAfter === undefined ? 60_000 : 0,
      listResources: listCatalog(deps),
      hideResource: (key, hidden) => catalog.hide(key, hidden),
    }
    app = await startTestApp({
      networks: [{ ...servedNetwork, name: 'base-sepolia', caip2: 'eip155:84532' }],
      verifyPayment: () => TE.right(valid),
      settlePayment: () => TE.right(settleNext),
      lookUpSettlement: () => TE.right(O.none),
      operator: { token: OPERATOR_TOKEN, recentDeliveries: async () => [] },
      ...(discoveryOn ? { discovery } : {}),
    })
  }
  const onBaseSepolia = <B extends { paymentRequirements: Record<string, unknown> }>(body: B): B => {
    const b = body as unknown as {
      paymentPayload: Record<string, unknown>
      paymentRequirements: Record<string, unknown>
    }
    b.paymentRequirements.network = 'eip155:84532'
    if (b.paymentPayload.accepted !== undefined)
      b.paymentPayload.accepted = { ...(b.paymentPayload.accepted as object), network: 'eip155:84532' }
    return body
  }
  const settle = (body: unknown) => postJson(`${app.base}/api/facilitator/settle`, body)
  const list = async (query = '') => {
    const res = await fetch(`${app.base}/api/facilitator/discovery/resources${query}`)
    return {
      status: res.status,
      cache: res.headers.get('cache-control'),
      body: (await res.json()) as ListAnswer,
    }
  }
  beforeEach(() => {
    settleNext = settled(false)
  })
  afterEach(() => app.close())

  it('a settled payment catalogues its declaration (EXTENSION-RESPONSES success); a verify alone lists nothing', async () => {
    await start(true)
    const body = onBaseSepolia(v2BodyDeclaring())
    await postJson(`${app.base}/api/facilitator/verify`, body)
    expect((await list()).body.items).to.deep.equal([])
    const res = await settle(body)
    expect(res.status).to.equal(200)
    expect(extensionResponses(res)).to.deep.equal({ bazaar: { status: 'success' } })
    const listed = await list()
    expect(listed.cache).to.equal('public, max-age=30')
    expect(listed.body.pagination).to.deep.equal({ limit: 20, offset: 0, total: 1 })
    expect(listed.body.items[0]).to.deep.include({
      resource: 'https://shop.example/weather',
      type: 'http',
      x402Version: 2,
      description: 'Weather by city',
      serviceName: 'Shop Weather',
      accepts: [body.paymentRequirements],
      extensions: { bazaar: body.paymentPayload.extensions.bazaar },
      metadata: { method: 'GET' },
    })
    expect(listed.body.items[0]!.lastUpdated).to.match(/^2026-11-29T12:00:00/)
  })

  it('a replayed success, a refusal and a body without a declaration catalogue nothing and say nothing', async () => {
    await start(true)
    settleNext = settled(true)
    expect(extensionResponses(await settle(onBaseSepolia(v2BodyDeclaring())))).to.equal(undefined)
    settleNext = { _tag: 'Refused', payer: PAYER, refusal: { _tag: 'ValueBelowAmount', value: 1n, amount: 2n } }
    expect(extensionResponses(await settle(onBaseSepolia(v2BodyDeclaring())))).to.equal(undefined)
    settleNext = settled(false)
    expect(extensionResponses(await settle(onBaseSepolia(v2Body())))).to.equal(undefined)
    expect((await list()).body.pagination.total).to.equal(0)
  })

  it('a hostile declaration is rejected, naming why, and the settle still succeeds', async () => {
    await start(true)
    const html = onBaseSepolia(
      v2BodyDeclaring(weatherExtension(), {
        url: 'https://shop.example/x',
        description: '<img src=x onerror=alert(1)>',
      }),
    )
    const res = await settle(html)
    expect(await res.json()).to.include({ success: true })
    expect(extensionResponses(res)).to.deep.equal({
      bazaar: {
        status: 'rejected',
        rejectedReason: 'description: markup (< or >) is not catalogued; describe it in plain text',
      },
    })
    const big = weatherExtension()
    ;(big.info as Record<string, unknown>).padding = 'x'.repeat(20_000)
    expect(extensionResponses(await settle(onBaseSepolia(v2BodyDeclaring(big))))).to.deep.equal({
      bazaar: { status: 'rejected', rejectedReason: 'extensions.bazaar: at most 16384 bytes of JSON' },
    })
    expect((await list()).body.pagination.total).to.equal(0)
  })

  it("a payee's resources past the cap are rejected, naming the cap", async () => {
    await start(true, 2)
    for (const path of ['a', 'b', 'c']) {
      const body = onBaseSepolia(v2BodyDeclaring(weatherExtension(), { url: `https://shop.example/${path}` }))
      const res = await settle(body)
      if (path === 'c')
        expect(extensionResponses(res))
          .to.have.nested.property('bazaar.rejectedReason')
          .that.matches(/already has 2/)
    }
    expect((await list()).body.pagination.total).to.equal(2)
  })

  it('v1 (x402-express outputSchema) is catalogued as x402Version 1', async () => {
    await start(true)
    const body = v1BodyDeclaring()
    body.paymentPayload.network = 'base-sepolia'
    expect(extensionResponses(await settle(body))).to.deep.equal({ bazaar: { status: 'success' } })
    expect((await list()).body.items[0]).to.deep.include({ resource: 'http://shop.test/weather', x402Version: 1 })
  })

  it('filters (network by served name or CAIP-2), pages, searches; a bad parameter is a 400 naming it', async () => {
    await start(true)
    for (const path of ['weather', 'stocks'])
      await settle(
        onBaseSepolia(v2BodyDeclaring(weatherExtension(), { url: `https://shop.example/${path}`, description: path })),
      )
    expect((await list('?network=base-sepolia')).body.pagination.total).to.equal(2)
    expect((await list('?network=eip155:84532&type=http&extensions=bazaar')).body.pagination.total).to.equal(2)
    expect((await list('?network=eip155:1')).body.pagination.total).to.equal(0)
    expect((await list('?extensions=offer-receipt')).body.pagination.total).to.equal(0)
    const paged = await list('?limit=1&offset=1')
    expect(paged.body.items).to.have.length(1)
    expect(paged.body.pagination).to.deep.equal({ limit: 1, offset: 1, total: 2 })
    const search = await fetch(`${app.base}/api/facilitator/discovery/search?query=stocks&limit=1`)
    expect(await search.json()).to.deep.include({ partialResults: false, pagination: { limit: 1, cursor: null } })
    for (const [query, error] of [
      ['?limit=0', 'limit must be a whole number from 1 to 100'],
      ['?limit=101', 'limit must be a whole number from 1 to 100'],
      ['?offset=-1', 'offset must be a whole number from 0 to 10000'],
      ['?offset=10001', 'offset must be a whole number from 0 to 10000'],
      ['?type=http&type=mcp', 'type must be given once'],
      [`?payTo=${'x'.repeat(129)}`, 'payTo: at most 128 characters'],
    ] as const) {
      const refused = await list(query)
      expect(refused.status).to.equal(400)
      expect(refused.body).to.include({ error, errorCode: 'invalid_query' })
    }
    const noQuery = await fetch(`${app.base}/api/facilitator/discovery/search`)
    expect(noQuery.status).to.equal(400)
    expect(await noQuery.json()).to.include({
      error: 'query: the words to search for, 1 to 200 characters',
      errorCode: 'invalid_query',
    })
  })

  it("a payment to its own payer catalogues nothing; a reason quoting the payer's bytes is bounded", async () => {
    await start(true)
    const selfPaid = onBaseSepolia(v2BodyDeclaring())
    selfPaid.paymentRequirements.payTo = PAYER
    expect(extensionResponses(await settle(selfPaid))).to.deep.equal({
      bazaar: { status: 'rejected', rejectedReason: 'a payment to its own payer is not catalogued' },
    })
    const long = weatherExtension()
    const input = (long.schema.properties as Record<string, Record<string, Record<string, unknown>>>).input!
    input.properties![`q${'x'.repeat(500)}`] = { anyOf: [{ type: 'string' }] }
    const answer = extensionResponses(await settle(onBaseSepolia(v2BodyDeclaring(long)))) as {
      bazaar: { rejectedReason: string }
    }
    expect(answer.bazaar.rejectedReason).to.have.length(200)
    expect(answer.bazaar.rejectedReason).to.match(
      /^extensions\.bazaar\.schema\.properties\.input\.properties\.qxxx.*…$/,
    )
    expect((await list()).body.pagination.total).to.equal(0)
  })

  it('a write slower than the wait: the settle answers at once, processing; the entry is listed once written', async () => {
    let written!: () => void
    await start(true, 10, new Promise<void>((resolve) => (written = resolve)))
    const res = await settle(onBaseSepolia(v2BodyDeclaring()))
    expect(await res.json()).to.include({ success: true })
    expect(extensionResponses(res)).to.deep.equal({ bazaar: { status: 'processing' } })
    expect((await list()).body.pagination.total).to.equal(0)
    written()
    await waitFor('the entry written', async () => (await list()).body.pagination.total === 1, 30_000, 0)
  })

  it('a NUL in a query parameter is a 400 naming it', async () => {
    await start(true)
    const refused = await list('?type=%00')
    expect(refused.status).to.equal(400)
    expect(refused.body.error).to.equal('type: must not contain the NUL character (\\u0000)')
  })

  it('the operator hides a resource (and shows it again); without the token, 401', async () => {
    await start(true)
    await settle(onBaseSepolia(v2BodyDeclaring()))
    const hide = (body: unknown, token = OPERATOR_TOKEN) =>
      postJson(`${app.base}/api/facilitator/operator/discovery/hide`, body, { authorization: `Bearer ${token}` })
    expect((await hide({ resource: 'https://shop.example/weather' }, 'wrong')).status).to.equal(401)
    const hidden = await hide({ resource: 'https://shop.example/weather' })
    expect(await hidden.json()).to.include({ resource: 'https://shop.example/weather', hidden: true, entries: 1 })
    expect((await list()).body.pagination.total).to.equal(0)
    await hide({ resource: 'https://shop.example/weather', hidden: false })
    expect((await list()).body.pagination.total).to.equal(1)
    expect((await hide({ resource: 7 })).status).to.equal(400)
  })

  it('off: nothing catalogued, the routes answer 404 discovery_off, /supported names no bazaar', async () => {
    await start(false)
    expect(extensionResponses(await settle(onBaseSepolia(v2BodyDeclaring())))).to.equal(undefined)
    const off = await list()
    expect(off.status).to.equal(404)
    expect(off.body).to.include({ error: 'discovery is not served here (DISCOVERY=off)', errorCode: 'discovery_off' })
    const supported = (await (await fetch(`${app.base}/api/facilitator/supported`)).json()) as { extensions: string[] }
    expect(supported.extensions).to.not.include('bazaar')
  })

  it('on: /supported names bazaar among its extensions', async () => {
    await start(true)
    const supported = (await (await fetch(`${app.base}/api/facilitator/supported`)).json()) as { extensions: string[] }
    expect(supported.extensions).to.include('bazaar')
  })
})
