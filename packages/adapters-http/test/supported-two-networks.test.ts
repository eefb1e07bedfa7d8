import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { EURC_BASE, SIGNER_A, SIGNER_B, SIGNER_C, twoNetworks, USDC_BASE, USDT_AMOY } from './support/two-networks.js'

describe('HTTP /supported: two networks, two tokens on the first', () => {
  let app: TestApp
  before(async () => {
    const unreachable = () => TE.left({ _tag: 'JournalUnavailable' as const, reason: 'not under test' })
    app = await startTestApp({
      networks: twoNetworks,
      facilitator: SIGNER_A,
      verifyPayment: unreachable,
      settlePayment: unreachable,
      lookUpSettlement: () => TE.right(O.none),
    })
  })
  after(() => app.close())

  it('/supported: every network and token in the spec fields; one x402 v2 kind per network, its tokens in extra, and x402 v1 kinds by v1 name', async () => {
    const res = await fetch(`${app.base}/api/facilitator/supported`)
    expect(res.status).to.equal(200)
    expect(await res.json()).to.deep.equal({
      x402Version: '2.0',
      facilitator: SIGNER_A,
      schemes: ['exact'],
      networks: ['base-sepolia', 'polygon-amoy'],
      assets: [
        { network: 'base-sepolia', asset: 'USDC', address: USDC_BASE },
        { network: 'base-sepolia', asset: 'EURC', address: EURC_BASE },
        { network: 'polygon-amoy', asset: 'USDT', address: USDT_AMOY },
      ],
      kinds: [
        {
          x402Version: 2,
          scheme: 'exact',
          network: 'eip155:84532',
          extra: {
            name: 'USDC',
            version: '2',
            asset: USDC_BASE,
            assets: [
              {
                address: USDC_BASE,
                symbol: 'USDC',
                decimals: 6,
                name: 'USDC',
                version: '2',
                minAmount: '1',
                transferMethods: ['eip3009'],
              },
              {
                address: EURC_BASE,
                symbol: 'EURC',
                decimals: 2,
                name: 'EURC',
                version: '1',
                minAmount: '100',
                transferMethods: ['eip3009'],
              },
            ],
          },
        },
        { x402Version: 1, scheme: 'exact', network: 'base-sepolia' },
        {
          x402Version: 2,
          scheme: 'exact',
          network: 'eip155:80002',
          extra: {
            name: 'Tether',
            version: '1',
            asset: USDT_AMOY,
            assets: [
              {
                address: USDT_AMOY,
                symbol: 'USDT',
                decimals: 6,
                name: 'Tether',
                version: '1',
                minAmount: '5',
                transferMethods: ['eip3009'],
              },
            ],
          },
        },
        { x402Version: 1, scheme: 'exact', network: 'polygon-amoy' },
      ],
      extensions: ['payment-identifier'],
      signers: {
        'eip155:*': [SIGNER_A, SIGNER_B, SIGNER_C],
        'eip155:84532': [SIGNER_A, SIGNER_B],
        'eip155:80002': [SIGNER_B, SIGNER_C],
      },
    })
  })
})
