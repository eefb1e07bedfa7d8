import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { stripVTControlCharacters } from 'node:util'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { spawnApp } from './support/app-process.js'
import { runDemo as runSolanaDemo } from './support/demo-process.js'
import { waitFor } from './support/wait-for.js'

const DEMO = fileURLToPath(new URL('../src/tools/demo.js', import.meta.url))

/** Command lines of every live process that mentions `needle`. */
const processesMentioning = async (needle: string): Promise<string[]> => {
  const found: string[] = []
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')
    const state = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')
    if (cmdline.includes(needle) && !/\) Z /.test(state)) found.push(`${pid}: ${cmdline.replaceAll('\0', ' ')}`)
  }
  return found
}

describe("dev mode: the README's `npm start` and `npm run demo`, and Ctrl-C", function () {
  this.timeout(180_000)

  it('starts its own chain and Postgres, serves the demo payment, and leaves no process behind on SIGINT', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'x402-dev-'))
    // As root, embedded Postgres runs as the `postgres` user, which must be able to enter the directory.
    await chmod(dataDir, 0o755)
    // No RPC_URL, no DATABASE_URL: dev mode.
    const app = await spawnApp({ DATA_DIR: dataDir, RPC_URL: '', DATABASE_URL: '', LOG_LEVEL: 'warn' }, 90_000)
    try {
      // The demo payers are printed right after the ready line.
      const output = await waitFor('the demo payers', async () =>
        app.output().includes('dev-only demo payers') ? app.output() : undefined,
      )
      for (const step of [
        'dev mode: starting 2 local chains (anvil)',
        'deployed at',
        'demo smart wallets funded',
        'dev mode: batch settler deployed at',
        'starting embedded Postgres',
        'applying database migrations',
        'dev-only demo payers',
      ]) {
        expect(output).to.include(step)
      }
      type Wallet = { address: string }
      const session = JSON.parse(await readFile(path.join(dataDir, 'dev-session.json'), 'utf8')) as {
        rpcUrl: string
        networks: Array<{ rpcUrl: string }>
        settler: string
        smartWallets: { deployed: Wallet; counterfactual: Wallet }
      }
      expect(output).to.include(`batch settler ${session.settler}, up to 100 payments a transaction`)
      // Both chains dev mode started.
      const anvilPorts = session.networks.map((network) => new URL(network.rpcUrl).port)
      expect(anvilPorts).to.have.length(2)

      const runDemo = async (flags: string[] = [], symbol = 'DUSD'): Promise<string> => {
        // Under lerna FORCE_COLOR is set, and colours would split what the assertions read.
        const demo = spawn(process.execPath, [DEMO, ...flags], {
          env: { ...process.env, DATA_DIR: dataDir, FORCE_COLOR: '0', NO_COLOR: '1' },
          stdio: ['ignore', 'pipe', 'pipe'],
        })
        let demoOutput = ''
        const plain = (chunk: Buffer) => stripVTControlCharacters(chunk.toString())
        demo.stdout.on('data', (chunk: Buffer) => (demoOutput += plain(chunk)))
        demo.stderr.on('data', (chunk: Buffer) => (demoOutput += plain(chunk)))
        expect(await new Promise((resolve) => demo.once('exit', resolve)), demoOutput).to.equal(0)
        expect(demoOutput).to.match(/POST \/api\/facilitator\/verify → 200 \{ valid: true/)
        expect(demoOutput).to.match(/POST \/api\/facilitator\/settle → 200 \{\s+success: true/)
        expect(demoOutput).to.match(new RegExp(`: 999 ${symbol}; payee 0x[0-9a-f]{40}: 1 ${symbol}`))
        return demoOutput
      }
      await runDemo()
      // The second chain dev mode started, and its second (EURC-like) token: paid by the same demo payer.
      await runDemo(['--network', 'eip155:31338'])
      await runDemo(['--network', 'eip155:31338', '--token', 'DEUR'], 'DEUR')
      // The local Solana chain (the real SVM, under devnet's id): the official @x402/svm client pays 1.0 USDC.
      expect(output).to.include('dev mode: Solana solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1')
      const onSolana = await runSolanaDemo(dataDir, ['--network', 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'])
      expect(onSolana.code, onSolana.output).to.equal(0)
      expect(onSolana.output).to.match(/POST \/api\/facilitator\/settle → 200 \{\s+success: true/)
      expect(onSolana.output).to.match(/: 999 USDC; payee [1-9A-HJ-NP-Za-km-z]{32,44}: 1 USDC/)
      // The demo smart wallets: the deployed one (ERC-1271), the one the settle deploys (ERC-6492, the demo factory).
      const wallets = session.smartWallets
      expect(await runDemo(['--smart-wallet'])).to.include(`payer ${wallets.deployed.address}: 1000 DUSD`)
      expect(await runDemo(['--counterfactual'])).to.include(
        `paying from the demo smart wallet ${wallets.counterfactual.address} (ERC-6492`,
      )

      expect(await app.kill('SIGINT')).to.equal(0)
      expect(app.output()).to.include('stopped')
      await waitFor('anvil and Postgres gone', async () => {
        const left = [
          ...(await processesMentioning(dataDir)),
          ...(await Promise.all(anvilPorts.map((port) => processesMentioning(`--port\0${port}`)))).flat(),
        ]
        return left.length === 0 ? true : undefined
      })
    } finally {
      if (app.child.exitCode === null) await app.kill('SIGINT')
      await rm(dataDir, { recursive: true, force: true })
    }
  })

  it('with FACILITATOR_PRIVATE_KEYS: its pool instead of its own key, each funded and allowed by its settler', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'x402-dev-'))
    await chmod(dataDir, 0o755)
    const keys = [generatePrivateKey(), generatePrivateKey()]
    const accounts = keys.map((key) => privateKeyToAddress(key).toLowerCase())
    const app = await spawnApp(
      { DATA_DIR: dataDir, RPC_URL: '', DATABASE_URL: '', LOG_LEVEL: 'warn', FACILITATOR_PRIVATE_KEYS: keys.join(',') },
      90_000,
    )
    try {
      expect(app.output()).to.include(`dev mode: 2 facilitator keys funded: ${accounts.join(', ')}`)
      expect(app.output()).to.include(`facilitator ${accounts[0]} and 1 more signing keys (${accounts[1]})`)
      const supported = (await (await fetch(`${app.url}/supported`)).json()) as { signers: Record<string, string[]> }
      expect(supported.signers['eip155:*']).to.deep.equal(accounts)
      // Ready: both keys hold gas, their locks and (the settler deployed by the first) isSettler.
      const ready = await fetch(`${new URL(app.url).origin}/readyz`)
      const body = (await ready.json()) as { checks: Record<string, { ok: boolean; detail: string }> }
      expect(ready.status, JSON.stringify(body)).to.equal(200)
      for (const account of accounts) expect(body.checks['settler:eip155:31337']!.detail).to.include(`${account}: 0x`)
      expect(await app.kill('SIGINT')).to.equal(0)
    } finally {
      if (app.child.exitCode === null) await app.kill('SIGINT')
      await rm(dataDir, { recursive: true, force: true })
    }
  })
})
