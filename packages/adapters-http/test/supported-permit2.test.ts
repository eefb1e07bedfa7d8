import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { ServedNetwork } from '@x402-facilitator/domain'
import { startTestApp, type TestApp } from './support/test-app.js'
import { SIGNER_A, SIGNER_B, SIGNER_C, USDC_BASE, USDT_AMOY } from './support/two-networks.js'

const DUSDT = `0x${'04'.repeat(20)}` as const

/** One network paying USDC both ways and DUSDT (EIP-2612) through Permit2 only; another EIP-3009 only. */
const networks: ReadonlyArray<ServedNetwork> = [
  {
    name: 'base-sepolia',
    caip2: 'eip155:84532',
    signers: [SIGNER_A, SIGNER_B],
    tokens: [
      {
        address: USDC_BASE,
        symbol: 'USDC',
        decimals: 6,
        eip712: { name: 'USDC', version: '2' },
        minAmount: 1n,
        transferMethods: ['eip3009', 'permit2'],
      },
      {
        address: DUSDT,
        symbol: 'DUSDT',
        decimals: 6,
        eip712: { name: 'Demo USDT', version: '1' },
        minAmount: 1n,
        transferMethods: ['permit2'],
        eip2612: true,
      },
    ],
  },
  {
    name: 'polygon-amoy',
    caip2: 'eip155:80002',
    signers: [SIGNER_C],
    tokens: [
      { address: USDT_AMOY, symbol: 'USDT', decimals: 6, eip712: { name: 'Tether', version: '1' }, minAmount: 5n },
    ],
  },
]

type Kind = { scheme: string; network: string; extra: Record<string, unknown> }

describe('HTTP /supported: Permit2 tokens, the upto kind and eip2612GasSponsoring', () => {
  let app: TestApp
  before(async () => {
    const unreachable = () => TE.left({ _tag: 'JournalUnavailable' as const, reason: 'not under test' })
    app = await startTestApp({
      networks,
      facilitator: SIGNER_A,
      verifyPayment: unreachable,
      settlePayment: unreachable,
      lookUpSettlement: () => TE.right(O.none),
    })
  })
  after(() => app.close())

  const supported = async () =>
    (await (await fetch(`${app.base}/api/facilitator/supported`)).json()) as {
      kinds: Kind[]
      extensions: string[]
      assets: Array<{ address: string }>
    }

  it('upto only where a token is paid through Permit2, naming its facilitator key and those tokens', async () => {
    const { kinds, extensions } = await supported()
    expect(kinds.map((k) => `${k.scheme} ${k.network}`)).to.deep.equal([
      'exact eip155:84532',
      'upto eip155:84532',
      'exact base-sepolia',
      'exact eip155:80002',
      'exact polygon-amoy',
    ])
    const upto = kinds[1]!
    expect(upto.extra.facilitatorAddress).to.be.oneOf([SIGNER_A, SIGNER_B])
    expect((upto.extra.assets as Array<{ address: string }>).map((a) => a.address)).to.deep.equal([USDC_BASE, DUSDT])
    expect(kinds[0]!.extra.assets).to.deep.include({
      address: DUSDT,
      symbol: 'DUSDT',
      decimals: 6,
      name: 'Demo USDT',
      version: '1',
      minAmount: '1',
      transferMethods: ['permit2'],
      eip2612: true,
    })
    expect(extensions).to.deep.equal(['eip2612GasSponsoring', 'payment-identifier'])
  })

  it("upto's facilitatorAddress takes the network's signers in turn, one per answer", async () => {
    const named = new Set<unknown>()
    for (let i = 0; i < 4; i++)
      named.add((await supported()).kinds.find((k) => k.scheme === 'upto')!.extra.facilitatorAddress)
    expect([...named].sort()).to.deep.equal([SIGNER_A, SIGNER_B].sort())
  })

  it("the spec's assets list only what its dialect pays (EIP-3009)", async () => {
    expect((await supported()).assets.map((a) => a.address)).to.deep.equal([USDC_BASE, USDT_AMOY])
  })
})
