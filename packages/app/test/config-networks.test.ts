import { expect } from 'chai'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { loadConfig } from '../src/config.js'
import { readConfigFile } from '../src/config-file.js'

const KEY = `0x${'ab'.repeat(32)}`
const production = {
  RPC_URL: 'http://127.0.0.1:8545',
  ASSET_ADDRESS: `0x${'12'.repeat(20)}`,
  FACILITATOR_PRIVATE_KEY: KEY,
  ATTESTATION_PRIVATE_KEY: `0x${'a7'.repeat(32)}`,
  API_KEYS: 'k1',
}
const { RPC_URL: _rpcUrl, ASSET_ADDRESS: _asset, ...keysOnly } = production

describe('configuration: networks and tokens in a file or NETWORKS (docs/CONFIGURATION.md)', () => {
  const TOKEN = `0x${'12'.repeat(20)}`
  const SETTLER = `0x${'34'.repeat(20)}`
  const network = {
    name: 'base',
    caip2: 'eip155:8453',
    rpcUrls: ['https://base.example/v2/SECRET-API-KEY'],
    tokens: [{ address: TOKEN, symbol: 'USDC', minAmount: '10000', settler: SETTLER }],
    confirmations: 3,
    maxFeePerGas: '2000000000',
    validityMarginSeconds: 6,
    headPollMs: 500,
    minGasBalanceWei: '10000000000000000',
    erc6492Factories: [`0x${'56'.repeat(20)}`],
  }
  const fileWith = async (content: unknown) => {
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'x402-networks-')), 'x402.json')
    await writeFile(file, JSON.stringify(content))
    return file
  }
  const refusalOf = async (content: unknown) => {
    const file = await fileWith(content)
    const error = await readConfigFile(file).then(
      () => undefined,
      (e: Error) => e.message,
    )
    if (error === undefined) throw new Error('expected the file to be refused')
    return { file, lines: error.split('\n') }
  }

  it("one network: its fields become today's settings, each decoded as that setting is", async () => {
    const file = await fileWith({ PORT: 5000, API_KEYS: 'k1', FACILITATOR_PRIVATE_KEY: KEY, networks: [network] })
    const config = loadConfig({ ...keysOnly, ...(await readConfigFile(file)) })
    if (E.isLeft(config)) throw new Error(config.left)
    expect(config.right).to.deep.include({
      PORT: 5000,
      RPC_URL: network.rpcUrls[0],
      NETWORK_ID: 'base',
      NETWORK_CAIP2: 'eip155:8453',
      ASSET_ADDRESS: TOKEN,
      ASSET_SYMBOL: 'USDC',
      MIN_AMOUNT: 10_000n,
      SETTLER_ADDRESS: SETTLER,
      CONFIRMATIONS: 3,
      MAX_FEE_PER_GAS: 2_000_000_000n,
      VALIDITY_MARGIN_SECONDS: 6,
      HEAD_POLL_MS: 500,
      MIN_GAS_BALANCE_WEI: 10n ** 16n,
      ERC6492_FACTORIES: network.erc6492Factories,
    })
  })

  it('the environment still wins over the file, as for every setting', async () => {
    const file = await fileWith({ networks: [network] })
    const config = loadConfig({ ...production, ...(await readConfigFile(file)), RPC_URL: 'http://127.0.0.1:8545' })
    expect(E.isRight(config) && config.right.RPC_URL).to.equal('http://127.0.0.1:8545')
  })

  it('every mistake on a line of its own, naming the file and where in it; an RPC URL is never echoed', async () => {
    const { file, lines } = await refusalOf({
      networks: [
        {
          caip2: 'base',
          rpcUrls: ['ftp://SECRET-API-KEY@base.example'],
          tokens: [{ address: '0x12', minAmount: 0, colour: 'blue' }],
          confirmations: 99,
          blockTime: 2,
        },
      ],
    })
    expect(lines).to.have.members([
      `configuration: ${file} networks[0].blockTime is not a field of networks[0] (known: name, caip2, ` +
        'confirmations, maxFeePerGas, validityMarginSeconds, headPollMs, stallReplaceMs, minGasBalanceWei, multicall3, ' +
        'erc6492Factories, permit2, exactPermit2Proxy, uptoPermit2Proxy, keysFile, rpcUrls, tokens)',
      `configuration: ${file} networks[0].caip2 must be an EVM CAIP-2 id, eip155:<chain id> (got "base")`,
      `configuration: ${file} networks[0].confirmations must be an integer from 0 to 64 (got 99)`,
      `configuration: ${file} networks[0].rpcUrls[0] must be a http or https URL`,
      `configuration: ${file} networks[0].tokens[0].colour is not a field of networks[0].tokens[0] (known: ` +
        'address, symbol, minAmount, settler, transferMethods)',
      `configuration: ${file} networks[0].tokens[0].address must be a 0x-prefixed 20-byte hex address (got "0x12")`,
      `configuration: ${file} networks[0].tokens[0].minAmount must be a whole number ≥ 1 of the token's smallest ` +
        'unit (got 0)',
    ])
    expect(lines.join('\n')).not.to.include('SECRET-API-KEY')
  })

  it('several networks, RPC URLs and tokens: each network decoded on its own, its tokens with it', async () => {
    const EURC = `0x${'78'.repeat(20)}`
    const file = await fileWith({
      networks: [
        {
          ...network,
          rpcUrls: [...network.rpcUrls, 'https://backup.example'],
          tokens: [...network.tokens, { address: EURC, minAmount: 5 }],
        },
        { name: 'polygon', caip2: 'eip155:137', rpcUrls: ['https://polygon.example'], tokens: [{ address: TOKEN }] },
      ],
    })
    const config = loadConfig({ ...keysOnly, ...(await readConfigFile(file)) })
    if (E.isLeft(config)) throw new Error(config.left)
    const [base, polygon] = config.right.networks
    expect(config.right.networks).to.have.length(2)
    expect(base!.rpcUrls).to.deep.equal([...network.rpcUrls, 'https://backup.example'])
    expect(base!.settings).to.deep.include({ NETWORK_ID: 'base', NETWORK_CAIP2: 'eip155:8453', CONFIRMATIONS: 3 })
    expect(base!.tokens).to.deep.equal([
      { ASSET_ADDRESS: TOKEN, ASSET_SYMBOL: 'USDC', MIN_AMOUNT: 10_000n, SETTLER_ADDRESS: SETTLER },
      { ASSET_ADDRESS: EURC, MIN_AMOUNT: 5n },
    ])
    expect(polygon!.settings).to.deep.equal({ NETWORK_ID: 'polygon', NETWORK_CAIP2: 'eip155:137' })
    expect(polygon!.tokens).to.deep.equal([{ ASSET_ADDRESS: TOKEN }])
    // Neither is the flat settings' network.
    expect(config.right.RPC_URL).to.equal(undefined)
  })

  it('a network or token named twice, or a settler shared by two tokens, is refused, naming both places', async () => {
    const { file, lines } = await refusalOf({
      networks: [
        {
          ...network,
          tokens: [...network.tokens, { address: TOKEN.toUpperCase().replace('0X', '0x'), settler: SETTLER }],
        },
        { ...network, caip2: 'eip155:137' },
      ],
    })
    expect(lines).to.have.members([
      `configuration: ${file} networks[1] is named "base" as networks[0] is: each network needs its own name`,
      `configuration: ${file} networks[0].tokens[1] is ${TOKEN.toUpperCase().replace('0X', '0x')} as tokens[0] is: ` +
        'list a token once',
      `configuration: ${file} networks[0].tokens[1].settler is ${SETTLER} as tokens[0]'s is: a settler is bound to ` +
        'one token',
    ])
  })

  it("a network's own signing keys (keysFile); the service's for the others; a file without a key named", async () => {
    const OWN = `0x${'cd'.repeat(32)}`
    const keysFile = path.join(await mkdtemp(path.join(tmpdir(), 'x402-keys-')), 'polygon.keys')
    await writeFile(keysFile, `# polygon's own key\n${OWN}\n`)
    const polygon = {
      name: 'polygon',
      caip2: 'eip155:137',
      rpcUrls: ['https://p.example'],
      tokens: [{ address: TOKEN }],
    }
    const file = await fileWith({ networks: [network, { ...polygon, keysFile }] })
    const config = loadConfig({ ...keysOnly, ...(await readConfigFile(file)) })
    if (E.isLeft(config)) throw new Error(config.left)
    expect(config.right.facilitatorKeys).to.deep.equal([KEY])
    expect(config.right.networks.map((n) => n.facilitatorKeys)).to.deep.equal([undefined, [OWN]])
    // The service's key file beside the networks is still the service's, not a network's.
    const empty = path.join(path.dirname(keysFile), 'empty.keys')
    await writeFile(empty, '# nothing\n')
    const refused = loadConfig({
      ...keysOnly,
      ...(await readConfigFile(await fileWith({ networks: [network, { ...polygon, keysFile: empty }] }))),
    })
    expect(refused).to.deep.equal(
      E.left(`configuration: NETWORKS networks[1].keysFile: FACILITATOR_PRIVATE_KEYS_FILE ${empty} holds no key`),
    )
  })

  it("several networks: a network's setting in the environment beside them is refused, naming it", async () => {
    const file = await fileWith({ networks: [network, { ...network, name: 'b', caip2: 'eip155:1' }] })
    const config = loadConfig({ ...production, ...(await readConfigFile(file)), MIN_AMOUNT: '5' })
    expect(config).to.deep.equal(
      E.left(
        "configuration: RPC_URL, ASSET_ADDRESS, MIN_AMOUNT set beside NETWORKS (or a config file's networks): " +
          'each belongs in its network or token there',
      ),
    )
  })

  it('a network without caip2, RPC URL or token is refused, naming each', async () => {
    const { file, lines } = await refusalOf({ networks: [{ name: 'base', rpcUrls: [], tokens: [{}] }] })
    expect(lines).to.have.members([
      `configuration: ${file} networks[0].caip2 is required (e.g. "eip155:8453")`,
      `configuration: ${file} networks[0].rpcUrls must be a non-empty list of RPC URLs`,
      `configuration: ${file} networks[0].tokens[0].address is required`,
    ])
    const empty = await refusalOf({ networks: {} })
    expect(empty.lines).to.deep.equal([`configuration: ${empty.file} networks must be a non-empty list of networks`])
  })
})
