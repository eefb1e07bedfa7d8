import { expect } from 'chai'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { helpText, loadConfig, SETTINGS } from '../src/config.js'
import { readConfigFile } from '../src/config-file.js'

const KEY = `0x${'ab'.repeat(32)}`
const production = {
  RPC_URL: 'http://127.0.0.1:8545',
  ASSET_ADDRESS: `0x${'12'.repeat(20)}`,
  FACILITATOR_PRIVATE_KEY: KEY,
  API_KEYS: 'k1',
}
const { RPC_URL: _rpcUrl, ASSET_ADDRESS: _asset, ...keysOnly } = production
const failure = (env: Record<string, string>) => {
  const result = loadConfig(env)
  if (E.isRight(result)) throw new Error('expected a configuration error')
  return result.left
}

describe('configuration (docs/ARCHITECTURE.md §6)', () => {
  it('nothing set: dev mode with the documented defaults', () => {
    const config = loadConfig({})
    if (E.isLeft(config)) throw new Error(config.left)
    expect(config.right).to.deep.include({
      PORT: 4021,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      RECEIPT_TIMEOUT_SECONDS: 30,
    })
    expect(config.right.RPC_URL).to.equal(undefined)
    expect(config.right.DATABASE_URL).to.equal(undefined)
  })
  it('a malformed value stops start-up with one line naming it', () => {
    expect(failure({ PORT: '70000' })).to.equal('configuration: PORT must be an integer from 0 to 65535 (got "70000")')
    expect(failure({ RPC_URL: 'ftp://x' })).to.equal(
      'configuration: RPC_URL must be a http or https URL (got "ftp://x")',
    )
    expect(failure({ ...production, LOG_LEVEL: 'loud' })).to.match(
      /^configuration: LOG_LEVEL must be one of fatal, error/,
    )
  })
  it('RPC_URL without its companions names the missing one', () => {
    expect(failure({ RPC_URL: 'http://127.0.0.1:8545' })).to.equal(
      'configuration: ASSET_ADDRESS is required when RPC_URL is set',
    )
  })
  it('production without API keys refuses to run open unless ALLOW_OPEN=true says so; dev mode stays open', () => {
    const { API_KEYS: _keys, ...keyless } = production
    expect(failure(keyless)).to.equal(
      'configuration: no API keys with RPC_URL set: set API_KEYS or API_KEYS_FILE, or ALLOW_OPEN=true to let ' +
        'anyone make this facilitator spend gas',
    )
    expect(E.isRight(loadConfig({ ...keyless, ALLOW_OPEN: 'true' }))).to.equal(true)
    expect(E.isRight(loadConfig({ ...keyless, API_KEYS_FILE: '/etc/keys' }))).to.equal(true)
    expect(E.isRight(loadConfig({ ALLOW_OPEN: 'false' }))).to.equal(true)
  })
  it('MIN_AMOUNT is a whole number of the smallest unit, at least 1 [1]', () => {
    const config = loadConfig(production)
    expect(E.isRight(config) && config.right.MIN_AMOUNT).to.equal(1n)
    const set = loadConfig({ ...production, MIN_AMOUNT: '10000' })
    expect(E.isRight(set) && set.right.MIN_AMOUNT).to.equal(10_000n)
    expect(failure({ ...production, MIN_AMOUNT: '0' })).to.equal(
      `configuration: MIN_AMOUNT must be a whole number ≥ 1 of the token's smallest unit (got "0")`,
    )
  })
  it('a malformed private key is named but never echoed', () => {
    const line = failure({ ...production, FACILITATOR_PRIVATE_KEY: '0xsecret-material' })
    expect(line).to.equal('configuration: FACILITATOR_PRIVATE_KEY must be a 0x-prefixed 32-byte hex private key')
    expect(line).to.not.include('secret-material')
  })
  it('ERC6492_FACTORIES: none by default; a comma-separated list of addresses (lower-cased); anything else named', () => {
    const none = loadConfig(production)
    expect(E.isRight(none) && none.right.ERC6492_FACTORIES).to.equal(undefined)
    expect(E.isRight(none) && none.right.MULTICALL3_ADDRESS).to.equal('0xca11bde05977b3631167028862be2a173976ca11')
    const two = loadConfig({ ...production, ERC6492_FACTORIES: ` 0x${'AB'.repeat(20)}, 0x${'cd'.repeat(20)} ` })
    expect(E.isRight(two) && two.right.ERC6492_FACTORIES).to.deep.equal([
      `0x${'ab'.repeat(20)}`,
      `0x${'cd'.repeat(20)}`,
    ])
    expect(failure({ ...production, ERC6492_FACTORIES: `0x${'ab'.repeat(20)},0x12` })).to.equal(
      `configuration: ERC6492_FACTORIES must be a comma-separated list of 0x-prefixed 20-byte hex addresses ` +
        `(got "0x${'ab'.repeat(20)},0x12")`,
    )
    expect(failure({ ...production, MULTICALL3_ADDRESS: 'multicall' })).to.match(
      /^configuration: MULTICALL3_ADDRESS must be a 0x-prefixed 20-byte hex address/,
    )
  })
  it('batch settlement: SETTLER_ADDRESS unset by default, BATCH_MAX_ITEMS 1–500 [100], BATCHING on|off [on]', () => {
    const defaults = loadConfig(production)
    expect(
      E.isRight(defaults) && [defaults.right.SETTLER_ADDRESS, defaults.right.BATCH_MAX_ITEMS, defaults.right.BATCHING],
    ).to.deep.equal([undefined, 100, 'on'])
    const set = loadConfig({
      ...production,
      SETTLER_ADDRESS: `0x${'Ab'.repeat(20)}`,
      BATCH_MAX_ITEMS: '500',
      BATCHING: 'off',
    })
    expect(E.isRight(set) && [set.right.SETTLER_ADDRESS, set.right.BATCH_MAX_ITEMS, set.right.BATCHING]).to.deep.equal([
      `0x${'ab'.repeat(20)}`,
      500,
      'off',
    ])
    expect(failure({ ...production, SETTLER_ADDRESS: '0x12' })).to.equal(
      'configuration: SETTLER_ADDRESS must be a 0x-prefixed 20-byte hex address (got "0x12")',
    )
    expect(failure({ ...production, BATCH_MAX_ITEMS: '0' })).to.equal(
      'configuration: BATCH_MAX_ITEMS must be an integer from 1 to 500 (got "0")',
    )
    expect(failure({ ...production, BATCH_MAX_ITEMS: '501' })).to.equal(
      'configuration: BATCH_MAX_ITEMS must be an integer from 1 to 500 (got "501")',
    )
    expect(failure({ ...production, BATCHING: 'true' })).to.equal(
      'configuration: BATCHING must be one of on, off (got "true")',
    )
  })
  it('dev mode deploys its own settler: a SETTLER_ADDRESS without RPC_URL is refused, naming BATCHING=off for none', () => {
    const line =
      'configuration: SETTLER_ADDRESS needs RPC_URL: dev mode deploys its own settler (BATCHING=off for none)'
    expect(failure({ SETTLER_ADDRESS: `0x${'ab'.repeat(20)}` })).to.equal(line)
    expect(failure({ SETTLER_ADDRESS: `0x${'ab'.repeat(20)}`, BATCHING: 'off' })).to.equal(line)
    expect(E.isRight(loadConfig({ BATCHING: 'off' }))).to.equal(true)
  })
  it('TRUST_PROXY: how many proxies to trust; true is one, false none [false]; anything else named in one line', () => {
    const trusted = (value?: string) => {
      const config = loadConfig(value === undefined ? production : { ...production, TRUST_PROXY: value })
      if (E.isLeft(config)) throw new Error(config.left)
      return config.right.TRUST_PROXY
    }
    expect([trusted(), trusted('false'), trusted('true'), trusted('0'), trusted('1'), trusted('3')]).to.deep.equal([
      0, 0, 1, 0, 1, 3,
    ])
    const line = (got: string) =>
      `configuration: TRUST_PROXY must be true, false or the number of proxies in front of the service, 0 to ` +
      `10 (got "${got}")`
    for (const bad of ['yes please', '-1', '11', '1.5'])
      expect(failure({ ...production, TRUST_PROXY: bad })).to.equal(line(bad))
  })
  it('NETWORK_ID is whatever string the operator sets', () => {
    const config = loadConfig({ ...production, NETWORK_ID: 'my-private-chain' })
    expect(E.isRight(config) && config.right.NETWORK_ID).to.equal('my-private-chain')
  })
  it('--config reads JSON or NAME=value lines; --help lists every setting with its default', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'x402-config-'))
    await writeFile(path.join(dir, 'a.json'), JSON.stringify({ PORT: 5000, LOG_LEVEL: 'warn' }))
    await writeFile(path.join(dir, 'b.env'), '# comment\nPORT = 5001\n')
    expect(await readConfigFile(path.join(dir, 'a.json'))).to.deep.equal({ PORT: '5000', LOG_LEVEL: 'warn' })
    expect(await readConfigFile(path.join(dir, 'b.env'))).to.deep.equal({ PORT: '5001' })
    const merged = loadConfig({ ...(await readConfigFile(path.join(dir, 'a.json'))), PORT: '6000' })
    expect(E.isRight(merged) && [merged.right.PORT, merged.right.LOG_LEVEL]).to.deep.equal([6000, 'warn'])
    const help = helpText()
    for (const name of Object.keys(SETTINGS)) expect(help).to.include(name)
  })
  describe('a configuration file naming its network under `networks` (docs/CONFIGURATION.md)', () => {
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
      const config = loadConfig(await readConfigFile(file))
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
          'confirmations, maxFeePerGas, validityMarginSeconds, headPollMs, minGasBalanceWei, multicall3, ' +
          'erc6492Factories, keysFile, rpcUrls, tokens)',
        `configuration: ${file} networks[0].caip2 must be an EVM CAIP-2 id, eip155:<chain id> (got "base")`,
        `configuration: ${file} networks[0].confirmations must be an integer from 0 to 64 (got 99)`,
        `configuration: ${file} networks[0].rpcUrls[0] must be a http or https URL`,
        `configuration: ${file} networks[0].tokens[0].colour is not a field of networks[0].tokens[0] (known: ` +
          'address, symbol, minAmount, settler)',
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
  describe('signing keys: FACILITATOR_PRIVATE_KEY, FACILITATOR_PRIVATE_KEYS, FACILITATOR_PRIVATE_KEYS_FILE (docs/ARCHITECTURE.md §5.8)', () => {
    const KEY2 = `0x${'cd'.repeat(32)}`
    const KEY3 = `0x${'ef'.repeat(32)}`
    const keysOf = (env: Record<string, string>) => {
      const config = loadConfig(env)
      if (E.isLeft(config)) throw new Error(config.left)
      return config.right.facilitatorKeys
    }
    const { FACILITATOR_PRIVATE_KEY: _key, ...keyless } = production
    it('one key stays the simple default; a pool is comma-separated, after FACILITATOR_PRIVATE_KEY when both are set', () => {
      expect(keysOf(production)).to.deep.equal([KEY])
      expect(keysOf({ ...keyless, FACILITATOR_PRIVATE_KEYS: ` ${KEY2}, ${KEY3} ` })).to.deep.equal([KEY2, KEY3])
      expect(keysOf({ ...production, FACILITATOR_PRIVATE_KEYS: `${KEY2},${KEY3}` })).to.deep.equal([KEY, KEY2, KEY3])
    })
    it('a file of one key a line (blank lines and # comments skipped) counts after the other two', async () => {
      const file = path.join(await mkdtemp(path.join(tmpdir(), 'keys-')), 'keys')
      await writeFile(file, `# pool\n${KEY2}\n\n  ${KEY3}  \n`)
      expect(keysOf({ ...production, FACILITATOR_PRIVATE_KEYS_FILE: file })).to.deep.equal([KEY, KEY2, KEY3])
    })
    it('with RPC_URL, no key at all is refused naming the settings', () => {
      expect(failure(keyless)).to.equal(
        'configuration: FACILITATOR_PRIVATE_KEY (or FACILITATOR_PRIVATE_KEYS / FACILITATOR_PRIVATE_KEYS_FILE) ' +
          'is required when RPC_URL is set',
      )
    })
    it('a malformed key is named by its place, never echoed', () => {
      const line = failure({ ...keyless, FACILITATOR_PRIVATE_KEYS: `${KEY2},0xsecret-material` })
      expect(line).to.equal(
        'configuration: FACILITATOR_PRIVATE_KEYS item 2 must be a 0x-prefixed 32-byte hex private key',
      )
      expect(line).to.not.include('secret-material')
    })
    it('a key listed twice is refused, naming both places and the account, not the key', async () => {
      const line = failure({ ...production, FACILITATOR_PRIVATE_KEYS: `${KEY2},${KEY}` })
      expect(line).to.match(
        /^configuration: FACILITATOR_PRIVATE_KEYS item 2 repeats the key of FACILITATOR_PRIVATE_KEY \(account 0x[0-9a-f]{40}\): each key may be listed once$/,
      )
      expect(line).to.not.include(KEY.slice(2))
      expect(
        failure({ ...keyless, FACILITATOR_PRIVATE_KEYS: `${KEY2},${KEY2.toUpperCase().replace('0X', '0x')}` }),
      ).to.match(/item 2 repeats the key of FACILITATOR_PRIVATE_KEYS item 1/)
      const file = path.join(await mkdtemp(path.join(tmpdir(), 'keys-')), 'keys')
      await writeFile(file, `${KEY3}\n${KEY2}\n`)
      expect(failure({ ...keyless, FACILITATOR_PRIVATE_KEYS: KEY2, FACILITATOR_PRIVATE_KEYS_FILE: file })).to.match(
        /^configuration: FACILITATOR_PRIVATE_KEYS_FILE line 2 repeats the key of FACILITATOR_PRIVATE_KEYS item 1/,
      )
    })
    it('a key file that cannot be read, or holds no key, is refused naming it', async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'keys-'))
      expect(failure({ ...keyless, FACILITATOR_PRIVATE_KEYS_FILE: path.join(dir, 'missing') })).to.equal(
        `configuration: FACILITATOR_PRIVATE_KEYS_FILE ${path.join(dir, 'missing')} cannot be read (ENOENT)`,
      )
      await writeFile(path.join(dir, 'empty'), '# none yet\n')
      expect(failure({ ...keyless, FACILITATOR_PRIVATE_KEYS_FILE: path.join(dir, 'empty') })).to.equal(
        `configuration: FACILITATOR_PRIVATE_KEYS_FILE ${path.join(dir, 'empty')} holds no key`,
      )
    })
    it('dev mode: no key needed', () => {
      expect(keysOf({})).to.deep.equal([])
    })
  })
})
