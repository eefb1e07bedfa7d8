import { expect } from 'chai'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { helpText, loadConfig, SETTINGS } from '../src/config.js'
import { readConfigFile } from '../src/config-file.js'
import { refusal, GAS_KEY, production } from './support/production-config.js'

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
    expect(refusal({ PORT: '70000' })).to.equal('configuration: PORT must be an integer from 0 to 65535 (got "70000")')
    expect(refusal({ RPC_URL: 'ftp://x' })).to.equal(
      'configuration: RPC_URL must be a http or https URL (got "ftp://x")',
    )
    expect(refusal({ ...production, LOG_LEVEL: 'loud' })).to.match(
      /^configuration: LOG_LEVEL must be one of fatal, error/,
    )
  })
  it('RPC_URL without its companions names the missing one', () => {
    expect(refusal({ RPC_URL: 'http://127.0.0.1:8545' })).to.equal(
      'configuration: ASSET_ADDRESS is required when RPC_URL is set',
    )
  })
  it('production without API keys refuses to run open unless ALLOW_OPEN=true says so; dev mode stays open', () => {
    const { API_KEYS: _keys, ...keyless } = production
    expect(refusal(keyless)).to.equal(
      'configuration: no API keys on a real network (RPC_URL or networks set): set API_KEYS or API_KEYS_FILE, or ' +
        'ALLOW_OPEN=true to let ' +
        'anyone make this facilitator spend gas',
    )
    expect(E.isRight(loadConfig({ ...keyless, ALLOW_OPEN: 'true' }))).to.equal(true)
    expect(E.isRight(loadConfig({ ...keyless, API_KEYS_FILE: '/etc/keys' }))).to.equal(true)
    expect(E.isRight(loadConfig({ ALLOW_OPEN: 'false' }))).to.equal(true)
    // A networks list and no RPC_URL is a real network too: the refusal names both ways of setting one.
    const { RPC_URL: _url, ASSET_ADDRESS: _asset, ...flat } = keyless
    const networks = [
      { caip2: 'eip155:8453', rpcUrls: ['https://base.example'], tokens: [{ address: production.ASSET_ADDRESS }] },
    ]
    expect(refusal({ ...flat, NETWORKS: JSON.stringify(networks) })).to.match(
      /^configuration: no API keys on a real network \(RPC_URL or networks set\)/,
    )
  })
  it('MIN_AMOUNT is a whole number of the smallest unit, at least 1 [1]', () => {
    const config = loadConfig(production)
    expect(E.isRight(config) && config.right.MIN_AMOUNT).to.equal(1n)
    const set = loadConfig({ ...production, MIN_AMOUNT: '10000' })
    expect(E.isRight(set) && set.right.MIN_AMOUNT).to.equal(10_000n)
    expect(refusal({ ...production, MIN_AMOUNT: '0' })).to.equal(
      `configuration: MIN_AMOUNT must be a whole number ≥ 1 of the token's smallest unit (got "0")`,
    )
  })
  it('OPERATOR_TOKEN shorter than 32 characters is refused, never echoed; 32 are taken', () => {
    const line = refusal({ OPERATOR_TOKEN: 'a'.repeat(31) })
    expect(line).to.equal('configuration: OPERATOR_TOKEN must be a secret of at least 32 characters')
    const taken = loadConfig({ OPERATOR_TOKEN: 'a'.repeat(32) })
    expect(E.isRight(taken) && taken.right.OPERATOR_TOKEN).to.equal('a'.repeat(32))
  })
  it('a malformed private key is named but never echoed', () => {
    const line = refusal({ ...production, FACILITATOR_PRIVATE_KEY: '0xsecret-material' })
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
    expect(refusal({ ...production, ERC6492_FACTORIES: `0x${'ab'.repeat(20)},0x12` })).to.equal(
      `configuration: ERC6492_FACTORIES must be a comma-separated list of 0x-prefixed 20-byte hex addresses ` +
        `(got "0x${'ab'.repeat(20)},0x12")`,
    )
    expect(refusal({ ...production, MULTICALL3_ADDRESS: 'multicall' })).to.match(
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
    expect(refusal({ ...production, SETTLER_ADDRESS: '0x12' })).to.equal(
      'configuration: SETTLER_ADDRESS must be a 0x-prefixed 20-byte hex address (got "0x12")',
    )
    expect(refusal({ ...production, BATCH_MAX_ITEMS: '0' })).to.equal(
      'configuration: BATCH_MAX_ITEMS must be an integer from 1 to 500 (got "0")',
    )
    expect(refusal({ ...production, BATCH_MAX_ITEMS: '501' })).to.equal(
      'configuration: BATCH_MAX_ITEMS must be an integer from 1 to 500 (got "501")',
    )
    expect(refusal({ ...production, BATCHING: 'true' })).to.equal(
      'configuration: BATCHING must be one of on, off (got "true")',
    )
  })
  it('dev mode deploys its own settler: a SETTLER_ADDRESS without RPC_URL is refused, naming BATCHING=off for none', () => {
    const line =
      'configuration: SETTLER_ADDRESS needs RPC_URL: dev mode deploys its own settler (BATCHING=off for none)'
    expect(refusal({ SETTLER_ADDRESS: `0x${'ab'.repeat(20)}` })).to.equal(line)
    expect(refusal({ SETTLER_ADDRESS: `0x${'ab'.repeat(20)}`, BATCHING: 'off' })).to.equal(line)
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
      expect(refusal({ ...production, TRUST_PROXY: bad })).to.equal(line(bad))
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
      expect(keysOf(production)).to.deep.equal([GAS_KEY])
      expect(keysOf({ ...keyless, FACILITATOR_PRIVATE_KEYS: ` ${KEY2}, ${KEY3} ` })).to.deep.equal([KEY2, KEY3])
      expect(keysOf({ ...production, FACILITATOR_PRIVATE_KEYS: `${KEY2},${KEY3}` })).to.deep.equal([
        GAS_KEY,
        KEY2,
        KEY3,
      ])
    })
    it('a file of one key a line (blank lines and # comments skipped) counts after the other two', async () => {
      const file = path.join(await mkdtemp(path.join(tmpdir(), 'keys-')), 'keys')
      await writeFile(file, `# pool\n${KEY2}\n\n  ${KEY3}  \n`)
      expect(keysOf({ ...production, FACILITATOR_PRIVATE_KEYS_FILE: file })).to.deep.equal([GAS_KEY, KEY2, KEY3])
    })
    it('with RPC_URL, no key at all is refused naming the settings', () => {
      expect(refusal(keyless)).to.equal(
        'configuration: FACILITATOR_PRIVATE_KEY (or FACILITATOR_PRIVATE_KEYS / FACILITATOR_PRIVATE_KEYS_FILE) ' +
          'is required when RPC_URL is set',
      )
    })
    it('a malformed key is named by its place, never echoed', () => {
      const line = refusal({ ...keyless, FACILITATOR_PRIVATE_KEYS: `${KEY2},0xsecret-material` })
      expect(line).to.equal(
        'configuration: FACILITATOR_PRIVATE_KEYS item 2 must be a 0x-prefixed 32-byte hex private key',
      )
      expect(line).to.not.include('secret-material')
    })
    it('a key listed twice is refused, naming both places and the account, not the key', async () => {
      const line = refusal({ ...production, FACILITATOR_PRIVATE_KEYS: `${KEY2},${GAS_KEY}` })
      expect(line).to.match(
        /^configuration: FACILITATOR_PRIVATE_KEYS item 2 repeats the key of FACILITATOR_PRIVATE_KEY \(account 0x[0-9a-f]{40}\): each key may be listed once$/,
      )
      expect(line).to.not.include(GAS_KEY.slice(2))
      expect(
        refusal({ ...keyless, FACILITATOR_PRIVATE_KEYS: `${KEY2},${KEY2.toUpperCase().replace('0X', '0x')}` }),
      ).to.match(/item 2 repeats the key of FACILITATOR_PRIVATE_KEYS item 1/)
      const file = path.join(await mkdtemp(path.join(tmpdir(), 'keys-')), 'keys')
      await writeFile(file, `${KEY3}\n${KEY2}\n`)
      expect(refusal({ ...keyless, FACILITATOR_PRIVATE_KEYS: KEY2, FACILITATOR_PRIVATE_KEYS_FILE: file })).to.match(
        /^configuration: FACILITATOR_PRIVATE_KEYS_FILE line 2 repeats the key of FACILITATOR_PRIVATE_KEYS item 1/,
      )
    })
    it('a key file that cannot be read, or holds no key, is refused naming it', async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'keys-'))
      expect(refusal({ ...keyless, FACILITATOR_PRIVATE_KEYS_FILE: path.join(dir, 'missing') })).to.equal(
        `configuration: FACILITATOR_PRIVATE_KEYS_FILE ${path.join(dir, 'missing')} cannot be read (ENOENT)`,
      )
      await writeFile(path.join(dir, 'empty'), '# none yet\n')
      expect(refusal({ ...keyless, FACILITATOR_PRIVATE_KEYS_FILE: path.join(dir, 'empty') })).to.equal(
        `configuration: FACILITATOR_PRIVATE_KEYS_FILE ${path.join(dir, 'empty')} holds no key`,
      )
    })
    it('dev mode: no key needed', () => {
      expect(keysOf({})).to.deep.equal([])
    })
  })
})
