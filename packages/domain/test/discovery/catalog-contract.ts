import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import type { CatalogEntry, DiscoveryCatalog, DiscoveryQuery } from '@x402-facilitator/domain'

/** How a test opens a fresh, empty catalog of the implementation under test. */
export type OpenCatalog = () => Promise<{ readonly catalog: DiscoveryCatalog; readonly close: () => Promise<void> }>

const T0 = new Date('2026-11-01T00:00:00Z')
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000)
const LONG_AGO = new Date('2020-01-01T00:00:00Z')
const PAYEE_A = `0x${'a1'.repeat(20)}`
const PAYEE_B = `0x${'b2'.repeat(20)}`

/** A catalog entry paid at `minutes` after T0, its fields as a declaration and a settle give them. */
export const catalogEntry = (over: Partial<CatalogEntry> = {}, minutes = 0): CatalogEntry => ({
  resource: 'https://api.example/weather',
  type: 'http',
  operation: 'GET',
  x402Version: 2,
  description: 'Weather forecasts by city',
  mimeType: 'application/json',
  accepts: { scheme: 'exact', network: 'eip155:84532', amount: '1000', payTo: PAYEE_A },
  extensions: { bazaar: { info: { input: { type: 'http', method: 'GET' } }, schema: { type: 'object' } } },
  payTo: PAYEE_A,
  network: 'eip155:84532',
  asset: `0x${'0c'.repeat(20)}`,
  scheme: 'exact',
  lastSettledAt: at(minutes),
  ...over,
})

const page = (over: Partial<DiscoveryQuery> = {}): DiscoveryQuery => ({ limit: 100, offset: 0, ...over })

const right = async <A>(task: () => Promise<E.Either<unknown, A>>): Promise<A> => {
  const result = await task()
  if (E.isLeft(result)) throw new Error(`expected a right, got ${JSON.stringify(result.left)}`)
  return result.right
}

/** The discovery catalog's behaviour, held by the fake and by Postgres alike. */
export const discoveryCatalogContract = (name: string, open: OpenCatalog): void => {
  describe(`discovery catalog contract: ${name}`, function () {
    this.timeout(30_000)
    let catalog: DiscoveryCatalog
    let close: () => Promise<void>
    beforeEach(async () => {
      ;({ catalog, close } = await open())
    })
    afterEach(() => close())

    const record = (entry: CatalogEntry, maxPerPayee = 100, paidSince = LONG_AGO) =>
      right(catalog.record(entry, { maxPerPayee, paidSince }))
    const list = (query: Partial<DiscoveryQuery> = {}, paidSince = LONG_AGO) =>
      right(catalog.list(page(query), paidSince))
    const resources = async (query: Partial<DiscoveryQuery> = {}, paidSince = LONG_AGO) =>
      (await list(query, paidSince)).entries.map((entry) => `${entry.operation} ${entry.resource}`)

    it('keeps every field of an entry, and the latest declaration of a (resource, operation)', async () => {
      expect(await record(catalogEntry())).to.equal('recorded')
      const later = catalogEntry({ description: 'Weather, updated', x402Version: 1 }, 5)
      expect(await record(later)).to.equal('recorded')
      expect(await record(catalogEntry({ operation: 'POST' }, 1))).to.equal('recorded')
      const { entries, total } = await list({ type: 'http' })
      expect(total).to.equal(2)
      expect(entries[0]).to.deep.equal(later)
    })

    it("a payment to another payee adds that payee's own entry of the resource, never replaces another's", async () => {
      await record(catalogEntry())
      await record(catalogEntry({ payTo: PAYEE_B, description: 'not the real one' }, 1))
      const { entries } = await list()
      expect(entries.map((e) => [e.payTo, e.description])).to.deep.equal([
        [PAYEE_B, 'not the real one'],
        [PAYEE_A, 'Weather forecasts by city'],
      ])
    })

    it('lists newest payment first, then by resource and operation, paging without overlap', async () => {
      for (const path of ['c', 'a', 'b']) await record(catalogEntry({ resource: `https://x.example/${path}` }, 1))
      await record(catalogEntry({ resource: 'https://x.example/z' }, 2))
      expect(await resources()).to.deep.equal([
        'GET https://x.example/z',
        'GET https://x.example/a',
        'GET https://x.example/b',
        'GET https://x.example/c',
      ])
      const first = await list({ limit: 2, offset: 0 })
      const second = await list({ limit: 2, offset: 2 })
      expect(first.total).to.equal(4)
      expect([...first.entries, ...second.entries].map((e) => e.resource)).to.deep.equal([
        'https://x.example/z',
        'https://x.example/a',
        'https://x.example/b',
        'https://x.example/c',
      ])
      expect((await list({ offset: 4 })).entries).to.deep.equal([])
    })

    it('filters by type, payee, network, asset and scheme', async () => {
      await record(catalogEntry())
      await record(
        catalogEntry({ resource: 'https://b.example/tool', type: 'mcp', operation: 'summarize', payTo: PAYEE_B }),
      )
      await record(catalogEntry({ resource: 'https://c.example/sol', network: 'solana:devnet', asset: 'Mint111' }))
      expect(await resources({ type: 'mcp' })).to.deep.equal(['summarize https://b.example/tool'])
      expect(await resources({ payTo: PAYEE_B })).to.deep.equal(['summarize https://b.example/tool'])
      expect(await resources({ network: 'solana:devnet', asset: 'Mint111' })).to.deep.equal([
        'GET https://c.example/sol',
      ])
      expect(await resources({ scheme: 'upto' })).to.deep.equal([])
    })

    it('searches the words of descriptions and resource URLs', async () => {
      await record(catalogEntry())
      await record(catalogEntry({ resource: 'https://api.example/stocks', description: 'Stock quotes' }))
      expect(await resources({ text: 'weather' })).to.deep.equal(['GET https://api.example/weather'])
      expect(await resources({ text: 'stocks' })).to.deep.equal(['GET https://api.example/stocks'])
      expect(await resources({ text: 'quotes stock' })).to.deep.equal(['GET https://api.example/stocks'])
      expect(await resources({ text: 'weather stock' })).to.deep.equal([])
    })

    it('lists nothing not paid for since the bound, counts only those against a payee, drops the others', async () => {
      await record(catalogEntry({ resource: 'https://x.example/old' }, 0))
      await record(catalogEntry({ resource: 'https://x.example/new' }, 10))
      expect(await resources({}, at(5))).to.deep.equal(['GET https://x.example/new'])
      // The old entry no longer counts: a second resource fits under a cap of 2 paid since the bound.
      expect(await record(catalogEntry({ resource: 'https://x.example/third' }, 11), 2, at(5))).to.equal('recorded')
      // Written since, the catalog dropped it: there is nothing of it left to hide.
      expect(await right(catalog.hide({ resource: 'https://x.example/old' }, true))).to.equal(0)
    })

    it("refuses a payee's entry past the cap, while its known entries are still declared again", async () => {
      await record(catalogEntry({ resource: 'https://x.example/1' }), 2)
      await record(catalogEntry({ resource: 'https://x.example/2' }), 2)
      expect(await record(catalogEntry({ resource: 'https://x.example/3' }), 2)).to.equal('payee_full')
      expect(await record(catalogEntry({ resource: 'https://x.example/2', description: 'again' }, 3), 2)).to.equal(
        'recorded',
      )
      expect(await record(catalogEntry({ resource: 'https://x.example/3', payTo: PAYEE_B }), 2)).to.equal('recorded')
      expect((await list({ payTo: PAYEE_A })).total).to.equal(2)
    })

    it('hides every entry of a resource (or one operation) until shown again; a new declaration keeps it hidden', async () => {
      await record(catalogEntry())
      await record(catalogEntry({ operation: 'POST' }))
      expect(await right(catalog.hide({ resource: 'https://api.example/weather', operation: 'POST' }, true))).to.equal(
        1,
      )
      expect(await resources()).to.deep.equal(['GET https://api.example/weather'])
      expect(await right(catalog.hide({ resource: 'https://api.example/weather' }, true))).to.equal(2)
      await record(catalogEntry({ description: 'declared again' }, 9))
      expect((await list()).total).to.equal(0)
      expect(await right(catalog.hide({ resource: 'https://api.example/weather' }, false))).to.equal(2)
      expect((await list()).total).to.equal(2)
      expect(await right(catalog.hide({ resource: 'https://nowhere.example/' }, true))).to.equal(0)
    })

    it("a hidden (resource, operation) stays hidden whoever declares it next; one payee's entry can be hidden alone", async () => {
      await record(catalogEntry())
      await record(catalogEntry({ payTo: PAYEE_B }))
      expect(await right(catalog.hide({ resource: 'https://api.example/weather', payTo: PAYEE_B }, true))).to.equal(1)
      expect((await list()).entries.map((e) => e.payTo)).to.deep.equal([PAYEE_A])
      await right(catalog.hide({ resource: 'https://api.example/weather' }, true))
      // Another payee declaring the hidden resource gets a hidden entry of its own.
      await record(catalogEntry({ payTo: `0x${'c3'.repeat(20)}` }, 3))
      expect((await list()).total).to.equal(0)
      // Another operation of it is another entry: not hidden.
      await record(catalogEntry({ operation: 'POST' }, 4))
      expect(await resources()).to.deep.equal(['POST https://api.example/weather'])
    })
  })
}
