import { expect } from 'chai'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { CANONICAL_PERMIT2_CONTRACTS } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import { loadConfig, type Config } from '../src/config.js'
import { readConfigFile } from '../src/config-file.js'
import { permit2Of, transferMethodsOf } from '../src/permit2-network.js'

const TOKEN = `0x${'12'.repeat(20)}`
const OTHER = `0x${'13'.repeat(20)}`
const PROXY = `0x${'AB'.repeat(20)}`
const single = {
  RPC_URL: 'http://127.0.0.1:8545',
  ASSET_ADDRESS: TOKEN,
  FACILITATOR_PRIVATE_KEY: `0x${'ab'.repeat(32)}`,
  ATTESTATION_PRIVATE_KEY: `0x${'a7'.repeat(32)}`,
  API_KEYS: 'k1',
}
const loaded = (env: Record<string, string>): Config => {
  const config = loadConfig(env)
  if (E.isLeft(config)) throw new Error(config.left)
  return config.right
}
const refusal = (env: Record<string, string>): string => {
  const config = loadConfig(env)
  if (E.isRight(config)) throw new Error('expected the configuration to be refused')
  return config.left
}
/** The settings of each token of each network, as a route is composed with them. */
const tokensOf = (config: Config) =>
  config.networks.map((network) =>
    network.tokens.map((token) => ({ config: { ...config, ...network.settings, ...token } })),
  )

describe('configuration: transfer methods and the Permit2 contracts (docs/CONFIGURATION.md)', () => {
  it('unset: EIP-3009 only, as before; no Permit2 contracts to check or advertise; canonical addresses', () => {
    const config = loaded(single)
    expect(config.TRANSFER_METHODS).to.equal(undefined)
    expect(transferMethodsOf(config)).to.deep.equal(['eip3009'])
    expect([
      config.PERMIT2_ADDRESS,
      config.EXACT_PERMIT2_PROXY_ADDRESS,
      config.UPTO_PERMIT2_PROXY_ADDRESS,
    ]).to.deep.equal([
      CANONICAL_PERMIT2_CONTRACTS.permit2,
      CANONICAL_PERMIT2_CONTRACTS.exactProxy,
      CANONICAL_PERMIT2_CONTRACTS.uptoProxy,
    ])
    expect(permit2Of([{ config }])).to.equal(undefined)
  })

  it('TRANSFER_METHODS: permit2, or both (in the order written); the canonical contracts then, or those named', () => {
    const both = loaded({ ...single, TRANSFER_METHODS: 'eip3009, permit2' })
    expect(transferMethodsOf(both)).to.deep.equal(['eip3009', 'permit2'])
    expect(permit2Of([{ config: both }])).to.deep.equal(CANONICAL_PERMIT2_CONTRACTS)
    const named = loaded({ ...single, TRANSFER_METHODS: 'permit2', EXACT_PERMIT2_PROXY_ADDRESS: PROXY })
    expect(transferMethodsOf(named)).to.deep.equal(['permit2'])
    expect(permit2Of([{ config: named }])).to.deep.equal({
      ...CANONICAL_PERMIT2_CONTRACTS,
      exactProxy: PROXY.toLowerCase(),
    })
  })

  it('a bad method, a method twice, none, or a bad address is refused in one line naming the variable', () => {
    expect(refusal({ ...single, TRANSFER_METHODS: 'eip3009,permit3' })).to.equal(
      'configuration: TRANSFER_METHODS must be a comma-separated list of eip3009, permit2, each once ' +
        '(got "eip3009,permit3")',
    )
    expect(refusal({ ...single, TRANSFER_METHODS: 'permit2,permit2' })).to.match(/^configuration: TRANSFER_METHODS/)
    expect(refusal({ ...single, TRANSFER_METHODS: ',' })).to.match(/^configuration: TRANSFER_METHODS/)
    expect(refusal({ ...single, UPTO_PERMIT2_PROXY_ADDRESS: '0x1234' })).to.equal(
      'configuration: UPTO_PERMIT2_PROXY_ADDRESS must be a 0x-prefixed 20-byte hex address, or none (got "0x1234")',
    )
    expect(refusal({ ...single, EXACT_PERMIT2_PROXY_ADDRESS: 'none' })).to.equal(
      'configuration: EXACT_PERMIT2_PROXY_ADDRESS must be a 0x-prefixed 20-byte hex address (got "none")',
    )
  })

  it('UPTO_PERMIT2_PROXY_ADDRESS=none: Permit2 exact alone, no upto proxy among the contracts', () => {
    const exactAlone = loaded({ ...single, TRANSFER_METHODS: 'permit2', UPTO_PERMIT2_PROXY_ADDRESS: 'none' })
    const { uptoProxy: _upto, ...contracts } = CANONICAL_PERMIT2_CONTRACTS
    expect(permit2Of([{ config: exactAlone }])).to.deep.equal(contracts)
  })

  describe('in a networks file', () => {
    const network = (more: Record<string, unknown>, tokens: unknown[]) => ({
      caip2: 'eip155:8453',
      rpcUrls: ['https://base.example/v2/KEY'],
      tokens,
      ...more,
    })
    const fileWith = async (networks: unknown[]) => {
      const file = path.join(await mkdtemp(path.join(tmpdir(), 'x402-permit2-')), 'x402.json')
      await writeFile(
        file,
        JSON.stringify({ API_KEYS: 'k1', FACILITATOR_PRIVATE_KEY: single.FACILITATOR_PRIVATE_KEY, networks }),
      )
      return file
    }

    it("per token transferMethods (a list), per network the proxies; a network's contracts only with a Permit2 token", async () => {
      const file = await fileWith([
        network({ uptoPermit2Proxy: PROXY }, [
          { address: TOKEN },
          { address: OTHER, transferMethods: ['eip3009', 'permit2'] },
        ]),
        network({ caip2: 'eip155:10' }, [{ address: TOKEN, transferMethods: ['eip3009'] }]),
      ])
      const config = loaded({
        ATTESTATION_PRIVATE_KEY: single.ATTESTATION_PRIVATE_KEY,
        ...(await readConfigFile(file)),
      })
      const [base, optimism] = tokensOf(config)
      expect(base!.map((token) => transferMethodsOf(token.config))).to.deep.equal([['eip3009'], ['eip3009', 'permit2']])
      // Every token's route on a network with a Permit2 token has its contracts (the network's, shared).
      expect(permit2Of(base!)).to.deep.equal({ ...CANONICAL_PERMIT2_CONTRACTS, uptoProxy: PROXY.toLowerCase() })
      expect(permit2Of(optimism!)).to.equal(undefined)
    })

    it('a bad method, an empty list, a bad proxy address, or a proxy on a token: each a line naming the file and path', async () => {
      const file = await fileWith([
        network({ exactPermit2Proxy: '0xnot-an-address', permit2: 42 }, [
          { address: TOKEN, transferMethods: ['eip3009', 'permit3'] },
          { address: OTHER, transferMethods: [], permit2: PROXY },
        ]),
      ])
      const error = await readConfigFile(file).then(
        () => '',
        (e: Error) => e.message,
      )
      const methods = 'a comma-separated list of eip3009, permit2, each once'
      expect(error.split('\n')).to.have.members([
        `configuration: ${file} networks[0].permit2 must be a 0x-prefixed 20-byte hex address (got 42)`,
        `configuration: ${file} networks[0].exactPermit2Proxy must be a 0x-prefixed 20-byte hex address ` +
          '(got "0xnot-an-address")',
        `configuration: ${file} networks[0].tokens[0].transferMethods must be ${methods} (got ["eip3009","permit3"])`,
        `configuration: ${file} networks[0].tokens[1].transferMethods must be ${methods} (got [])`,
        `configuration: ${file} networks[0].tokens[1].permit2 is not a field of networks[0].tokens[1] ` +
          '(known: address, symbol, minAmount, settler, transferMethods)',
      ])
    })
  })
})
