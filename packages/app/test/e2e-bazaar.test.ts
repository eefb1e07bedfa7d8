import { expect } from 'chai'
import { HTTPFacilitatorClient } from '@x402/core/http'
import { withBazaar } from '@x402/extensions/bazaar'
import { exactRequirements } from './support/official-resource-server.js'
import { officialClient, officialFetch, startOfficialShop, type OfficialShop } from './support/official-http-stack.js'
import { postJson } from './support/json-client.js'
import { makeOpenApiValidator } from './support/openapi-validator.js'
import { freshAddress } from './support/payments-on-chain.js'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

const OPERATOR_TOKEN = 'an-operator-token-of-at-least-32-chars'
const weather = {
  input: { city: 'Paris' },
  inputSchema: { properties: { city: { type: 'string' } }, required: ['city'] },
  output: { example: { temperature: 12 }, schema: { properties: { temperature: { type: 'number' } } } },
}

// Issue 41: Bazaar discovery with the official 2.27 stack — @x402/express with the bazaar extension as the resource
// server, @x402/fetch paying, @x402/extensions' withBazaar reading — against the real app on anvil and Postgres.
describe('Bazaar discovery: paid endpoints are found, with the official x402 2.27 packages (real app)', function () {
  this.timeout(180_000)
  let f: TestFacilitator
  let shop: OfficialShop
  const shopPayee = freshAddress()
  const bazaar = () => withBazaar(new HTTPFacilitatorClient({ url: f.base })).extensions.bazaar
  before(async () => {
    // A busy machine may take longer than the production wait over a write: these tests read the catalog's answer.
    f = await startTestFacilitator({
      DISCOVERY: 'true',
      DISCOVERY_MAX_PER_PAYEE: '3',
      DISCOVERY_WAIT_MS: '5000',
      OPERATOR_TOKEN,
    })
    shop = await startOfficialShop(f, shopPayee, [
      { path: '/weather', description: 'Weather by city', amount: '1000', discovery: weather },
      { path: '/stocks', description: 'Stock quotes', amount: '2000', discovery: { input: { ticker: 'X' } } },
      { path: '/undeclared', description: 'Nothing to find', amount: '1000' },
    ])
  })
  after(async () => {
    await shop?.close()
    await f?.stop()
  })

  it('a paid endpoint appears in listResources with its declared input and output schema', async () => {
    const paid = await officialFetch(f, 0)(`${shop.base}/weather?city=Paris`)
    expect(paid.status).to.equal(200)
    const { items, pagination } = await bazaar().listResources()
    expect(pagination).to.deep.include({ total: 1 })
    const [item] = items
    expect(item).to.deep.include({
      resource: `${shop.base}/weather`,
      type: 'http',
      x402Version: 2,
      description: 'Weather by city',
      mimeType: 'application/json',
    })
    expect(item!.accepts[0]).to.deep.include({ payTo: shopPayee, amount: '1000', network: `eip155:${f.chain.chainId}` })
    const declared = item!.extensions!.bazaar
    expect(declared)
      .to.have.nested.property('info.input')
      .that.deep.includes({
        type: 'http',
        method: 'GET',
        queryParams: { city: 'Paris' },
      })
    expect(declared)
      .to.have.nested.property('info.output')
      .that.deep.includes({ example: { temperature: 12 } })
    expect(declared)
      .to.have.nested.property('schema.properties.input.properties.queryParams.properties')
      .that.deep.equals({ city: { type: 'string' } })
    const validate = makeOpenApiValidator().schema('DiscoveryResources')
    expect(validate(await (await fetch(`${f.base}/discovery/resources`)).json())).to.equal(true)
  })

  it('a resource only verified, and an endpoint that declares nothing, never appear', async () => {
    const client = officialClient(f, 1)
    const requirements = exactRequirements(f)
    const payload = await client.createPaymentPayload({
      x402Version: 2,
      resource: { url: 'https://only-verified.example/data', description: 'never paid' },
      accepts: [requirements],
      extensions: { bazaar: (await import('@x402/extensions/bazaar')).declareDiscoveryExtension(weather).bazaar },
    })
    const verified = await new HTTPFacilitatorClient({ url: f.base }).verify(payload, requirements)
    expect(verified.isValid).to.equal(true)
    expect((await officialFetch(f, 1)(`${shop.base}/undeclared`)).status).to.equal(200)
    const { items } = await bazaar().listResources()
    expect(items.map((item) => item.resource)).to.not.include('https://only-verified.example/data')
    expect(items.map((item) => item.resource)).to.not.include(`${shop.base}/undeclared`)
  })

  it('filters, pages and searches as documented', async () => {
    expect((await officialFetch(f, 2)(`${shop.base}/stocks?ticker=X`)).status).to.equal(200)
    const all = await bazaar().listResources()
    expect(all.items.map((item) => item.resource)).to.deep.equal([`${shop.base}/stocks`, `${shop.base}/weather`])
    expect((await bazaar().listResources({ payTo: shopPayee, type: 'http' })).pagination.total).to.equal(2)
    expect((await bazaar().listResources({ network: 'eip155:1' })).pagination.total).to.equal(0)
    const second = await bazaar().listResources({ limit: 1, offset: 1 })
    expect(second.items.map((item) => item.resource)).to.deep.equal([`${shop.base}/weather`])
    expect(second.pagination).to.deep.equal({ limit: 1, offset: 1, total: 2 })
    const found = await bazaar().search({ query: 'stock quotes' })
    expect(found.resources.map((item) => item.resource)).to.deep.equal([`${shop.base}/stocks`])
    expect((await bazaar().search({ query: 'weather' })).resources).to.have.length(1)
    const refused = await fetch(`${f.base}/discovery/resources?limit=1000`)
    expect(refused.status).to.equal(400)
  })

  it('hostile declarations: markup refused, the cap per payee kept, never a 5xx; the operator hides an entry', async () => {
    const client = officialClient(f, 0)
    const { declareDiscoveryExtension } = await import('@x402/extensions/bazaar')
    const declared = declareDiscoveryExtension(weather).bazaar as { info: { input: Record<string, unknown> } }
    declared.info.input.method = 'GET'
    const settleDeclaring = async (url: string, description: string) => {
      const requirements = exactRequirements(f)
      const payload = await client.createPaymentPayload({
        x402Version: 2,
        resource: { url, description },
        accepts: [requirements],
        extensions: { bazaar: declared },
      })
      const answer = await f.post('settle', {
        x402Version: 2,
        paymentPayload: payload,
        paymentRequirements: requirements,
      })
      expect(answer.status).to.equal(200)
      expect(answer.body).to.include({ success: true })
      const header = answer.headers.get('extension-responses')
      return JSON.parse(Buffer.from(header!, 'base64').toString('utf8')) as { bazaar: Record<string, string> }
    }
    expect(await settleDeclaring('https://h.example/x', '<script>steal()</script>')).to.deep.equal({
      bazaar: {
        status: 'rejected',
        rejectedReason: 'description: markup (< or >) is not catalogued; describe it in plain text',
      },
    })
    // exactRequirements pays one payee: three resources fit under DISCOVERY_MAX_PER_PAYEE=3, the fourth does not.
    for (const path of ['a', 'b', 'c'])
      expect(await settleDeclaring(`https://h.example/${path}`, 'fine')).to.deep.equal({
        bazaar: { status: 'success' },
      })
    expect((await settleDeclaring('https://h.example/d', 'one too many')).bazaar.rejectedReason).to.match(
      /already has 3 resources in the catalog$/,
    )
    const hide = await postJson(
      `${f.base}/operator/discovery/hide`,
      { resource: 'https://h.example/a' },
      { authorization: `Bearer ${OPERATOR_TOKEN}` },
    )
    expect(hide.body).to.include({ entries: 1, hidden: true })
    const listed = (await bazaar().listResources({ limit: 100 })).items.map((item) => item.resource)
    expect(listed).to.include.members(['https://h.example/b', 'https://h.example/c'])
    expect(listed).to.not.include.members(['https://h.example/a', 'https://h.example/x', 'https://h.example/d'])
  })
})
