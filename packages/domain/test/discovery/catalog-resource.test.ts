import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import {
  catalogResource,
  DECLARATION_LIMITS,
  listCatalog,
  type CatalogOutcome,
  type DiscoveryDeps,
  type ResourceDeclaration,
} from '@x402-facilitator/domain'
import { makeTestClock } from '../test-clock.js'
import { catalogEntry } from './catalog-contract.js'
import { makeFakeCatalog } from './fake-catalog.js'

const DAY_MS = 86_400_000
const { payTo, network, asset, scheme, lastSettledAt: _at, ...declared } = catalogEntry()
const declaration: ResourceDeclaration = declared
const paid = { payTo, network, asset, scheme }

describe('catalogResource: what a settled payment puts in the discovery catalog', () => {
  const setUp = (maxPerPayee = 10) => {
    const clock = makeTestClock(new Date('2026-11-29T12:00:00Z'))
    const deps: DiscoveryDeps = { catalog: makeFakeCatalog(), clock, maxPerPayee, maxAgeMs: 30 * DAY_MS }
    const catalog = async (d: ResourceDeclaration): Promise<CatalogOutcome> => {
      const outcome = await catalogResource(deps)(d, paid)()
      if (E.isLeft(outcome)) throw new Error('the fake catalog failed')
      return outcome.right
    }
    const listed = async () => {
      const page = await listCatalog(deps)({ limit: 100, offset: 0 })()
      if (E.isLeft(page)) throw new Error('the fake catalog failed')
      return page.right
    }
    return { clock, catalog, listed }
  }

  it('catalogues the declaration with the payment terms and the time it settled, never the payer', async () => {
    const { catalog, listed, clock } = setUp()
    expect(await catalog(declaration)).to.deep.equal({ _tag: 'Catalogued' })
    const { entries } = await listed()
    expect(entries).to.deep.equal([{ ...declaration, ...paid, lastSettledAt: clock.now() }])
  })

  const rejected = async (over: Partial<ResourceDeclaration>) => {
    const { catalog, listed } = setUp()
    const outcome = await catalog({ ...declaration, ...over })
    expect((await listed()).total, 'nothing recorded').to.equal(0)
    if (outcome._tag !== 'Rejected') throw new Error('catalogued')
    return outcome.reason
  }

  it('rejects, naming why, markup or control characters in the text it shows, and oversized declarations', async () => {
    expect(await rejected({ description: '<script>alert(1)</script>' })).to.equal(
      'description: markup (< or >) is not catalogued; describe it in plain text',
    )
    expect(await rejected({ description: 'a\u0007bell' })).to.equal(
      'description: control characters are not catalogued',
    )
    expect(await rejected({ description: 'x'.repeat(1001) })).to.equal(
      'description: at most 1000 characters (got 1001)',
    )
    expect(await rejected({ mimeType: 'text/<html>' })).to.match(/^mimeType: markup/)
    expect(await rejected({ serviceName: '<svg onload=alert(1)>' })).to.match(/^serviceName: markup/)
    expect(await rejected({ tags: ['weather', '<b>x</b>'] })).to.match(/^tags: markup/)
    expect(
      await rejected({ extensions: { bazaar: { info: { big: 'x'.repeat(DECLARATION_LIMITS.extensionsBytes) } } } }),
    ).to.equal('extensions.bazaar: at most 16384 bytes of JSON')
    expect(await rejected({ accepts: { extra: 'x'.repeat(5000) } })).to.equal(
      'paymentRequirements: at most 4096 bytes of JSON to be catalogued',
    )
  })

  it('rejects a resource that is no http(s) URL or carries credentials, and an unknown method or type', async () => {
    expect(await rejected({ resource: 'ftp://files.example/x' })).to.equal(
      'resource: an absolute http or https URL without credentials',
    )
    expect(await rejected({ resource: 'https://user:pw@api.example/x' })).to.match(/^resource:/)
    expect(await rejected({ operation: 'TRACE' })).to.equal(
      'method: one of GET, HEAD, DELETE, POST, PUT, PATCH (got TRACE)',
    )
    expect(await rejected({ type: 'grpc' })).to.equal('type: http or mcp (got grpc)')
    // A payer's value is quoted 16 characters at most.
    expect(await rejected({ operation: 'X'.repeat(5000) })).to.equal(
      `method: one of GET, HEAD, DELETE, POST, PUT, PATCH (got ${'X'.repeat(16)}…)`,
    )
    expect(await rejected({ type: 'mcp', operation: '<tool>' })).to.match(/^tool: markup/)
  })

  it("refuses a payee's resources past the cap, naming it", async () => {
    const { catalog, listed } = setUp(2)
    for (const path of ['a', 'b']) await catalog({ ...declaration, resource: `https://api.example/${path}` })
    expect(await catalog({ ...declaration, resource: 'https://api.example/c' })).to.deep.equal({
      _tag: 'Rejected',
      reason: `payTo ${payTo} already has 2 resources in the catalog`,
    })
    expect((await listed()).total).to.equal(2)
  })

  it('10,000 resources declared for one payee: the cap catalogues 100, rejects the rest, and lists 100', async () => {
    const { catalog, listed } = setUp(100)
    const outcomes: CatalogOutcome[] = []
    for (let i = 0; i < 10_000; i++)
      outcomes.push(await catalog({ ...declaration, resource: `https://api.example/flood/${i}` }))
    expect(outcomes.filter((o) => o._tag === 'Catalogued')).to.have.length(100)
    expect(outcomes.filter((o) => o._tag === 'Rejected')).to.have.length(9_900)
    expect((await listed()).total).to.equal(100)
  })

  it('lists only what was paid for within the age', async () => {
    const { catalog, listed, clock } = setUp()
    await catalog(declaration)
    clock.advance(30 * DAY_MS)
    expect((await listed()).total).to.equal(1)
    clock.advance(1)
    expect((await listed()).total).to.equal(0)
  })
})
