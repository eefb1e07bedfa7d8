import { explainMechanismFailure } from '@x402-facilitator/domain'
import type { Server } from 'node:http'
import { expect } from 'chai'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { HTTPFacilitatorClient } from '@x402/core/http'
import { x402ResourceServer } from '@x402/core/server'
import { ExactEvmScheme } from '@x402/evm/exact/server'
import { makeHttpApp } from '@x402-facilitator/adapters-http'
import type { EvmAddress as Address, ServedNetwork, Settlement } from '@x402-facilitator/domain'
import { pino } from 'pino'
import { makeOpenApiValidator } from './support/openapi-validator.js'

const SIGNER_A = `0x${'a1'.repeat(20)}` as const
const SIGNER_B = `0x${'b2'.repeat(20)}` as const
const USDC_BASE = `0x${'01'.repeat(20)}` as const
const EURC_BASE = `0x${'02'.repeat(20)}` as const
const USDT_AMOY = `0x${'03'.repeat(20)}` as const

const networks: ReadonlyArray<ServedNetwork> = [
  {
    name: 'base-sepolia',
    caip2: 'eip155:84532',
    signers: [SIGNER_A],
    tokens: [
      { address: USDC_BASE, symbol: 'USDC', decimals: 6, eip712: { name: 'USDC', version: '2' }, minAmount: 1n },
      { address: EURC_BASE, symbol: 'EURC', decimals: 6, eip712: { name: 'EURC', version: '2' }, minAmount: 1n },
    ],
  },
  {
    name: 'polygon-amoy',
    caip2: 'eip155:80002',
    signers: [SIGNER_B],
    tokens: [
      { address: USDT_AMOY, symbol: 'USDT', decimals: 6, eip712: { name: 'Tether', version: '1' }, minAmount: 1n },
    ],
  },
]

const PAYER = `0x${'12'.repeat(20)}` as const
const NONCE = `0x${'07'.repeat(32)}` as const
const AT = new Date('2026-01-02T03:04:05Z')
/** A final settlement of PAYER's authorization NONCE on a network and token. */
const settledOn = (network: string, asset: Address): Settlement => ({
  id: network,
  generation: 1,
  state: 'final',
  network,
  asset,
  payer: PAYER,
  nonce: NONCE,
  payee: SIGNER_B,
  value: 1000n,
  validAfter: 0n,
  validBefore: 2_000_000_000n,
  signature: `0x${'11'.repeat(65)}`,
  owner: SIGNER_A,
  attempts: [],
  createdAt: AT,
  updatedAt: AT,
})

describe('x402 v2: the official client and resource server against two networks served (@x402/core, @x402/evm)', () => {
  let server: Server
  let facilitator: HTTPFacilitatorClient
  let root: string
  before(async () => {
    const unreachable = () => TE.left({ _tag: 'JournalUnavailable' as const, reason: 'not under test' })
    const app = makeHttpApp({
      networks,
      facilitator: SIGNER_A,
      addressChecksum: (lower) => lower,
      explainMechanismRefusal: explainMechanismFailure,
      logger: pino({ level: 'silent' }),
      verifyPayment: unreachable,
      settlePayment: unreachable,
      lookUpSettlement: unreachable,
      // The authorization settled on both networks.
      lookUpSettlementsByAuthorization: () =>
        TE.right([settledOn('base-sepolia', EURC_BASE), settledOn('polygon-amoy', USDT_AMOY)]),
    })
    server = app.listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    const address = server.address()
    if (address === null || typeof address === 'string') throw new Error('the app does not listen on a TCP port')
    root = `http://127.0.0.1:${address.port}`
    facilitator = new HTTPFacilitatorClient({ url: `${root}/api/facilitator` })
  })
  after(() => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))))

  it('getSupported lists one kind per network (and its x402 v1 kind), each with its own tokens, and the signers per network', async () => {
    const supported = await facilitator.getSupported()
    expect(supported.kinds.map((kind) => [kind.x402Version, kind.scheme, kind.network])).to.deep.equal([
      [2, 'exact', 'eip155:84532'],
      [1, 'exact', 'base-sepolia'],
      [2, 'exact', 'eip155:80002'],
      [1, 'exact', 'polygon-amoy'],
    ])
    const assetsOf = (network: string) =>
      (supported.kinds.find((kind) => kind.network === network)?.extra?.assets as Array<{ address: string }>).map(
        (a) => a.address,
      )
    expect(assetsOf('eip155:84532')).to.deep.equal([USDC_BASE, EURC_BASE])
    expect(assetsOf('eip155:80002')).to.deep.equal([USDT_AMOY])
    expect(supported.signers).to.deep.equal({
      'eip155:*': [SIGNER_A, SIGNER_B],
      'eip155:84532': [SIGNER_A],
      'eip155:80002': [SIGNER_B],
    })
  })

  it("a resource server's initialize picks each network's own kind (its first token's domain in extra)", async () => {
    const resourceServer = new x402ResourceServer(facilitator)
      .register('eip155:84532', new ExactEvmScheme())
      .register('eip155:80002', new ExactEvmScheme())
    await resourceServer.initialize()
    const base = resourceServer.getSupportedKind(2, 'eip155:84532', 'exact')
    const amoy = resourceServer.getSupportedKind(2, 'eip155:80002', 'exact')
    expect(base).to.deep.include({ network: 'eip155:84532' })
    expect(base?.extra).to.deep.include({ name: 'USDC', version: '2', asset: USDC_BASE })
    expect(amoy).to.deep.include({ network: 'eip155:80002' })
    expect(amoy?.extra).to.deep.include({ name: 'Tether', version: '1', asset: USDT_AMOY })
    expect(resourceServer.getSupportedKind(2, 'eip155:1', 'exact')).to.equal(undefined)
    // Requirements for a token of the second network: built on that network, with the token's domain.
    const [requirements] = await resourceServer.buildPaymentRequirements({
      scheme: 'exact',
      payTo: SIGNER_B,
      network: 'eip155:80002',
      price: { amount: '1000', asset: USDT_AMOY, extra: { name: 'Tether', version: '1' } },
    })
    expect(requirements).to.deep.include({ network: 'eip155:80002', asset: USDT_AMOY, amount: '1000' })
  })

  it('/supported and the lookup found on both networks (409 ambiguous_settlement) answer as the OpenAPI document says', async () => {
    const openApi = makeOpenApiValidator()
    const supported = await fetch(`${root}/api/facilitator/supported`)
    openApi.check('/api/facilitator/supported', 'get', supported.status, await supported.json())
    const ambiguous = await fetch(`${root}/api/facilitator/settlements?payer=${PAYER}&nonce=${NONCE}`)
    expect(ambiguous.status).to.equal(409)
    const body = (await ambiguous.json()) as { errorCode: string; matches: Array<{ network: string }> }
    openApi.check('/api/facilitator/settlements', 'get', 409, body)
    expect(body.errorCode).to.equal('ambiguous_settlement')
    expect(body.matches.map((m) => m.network)).to.deep.equal(['base-sepolia', 'polygon-amoy'])
  })
})
