import { CANONICAL_PERMIT2_CONTRACTS } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createPublicClient, http, parseEventLogs, erc20Abi, type Hex } from 'viem'
import { spawnApp, type AppProcess } from './support/app-process.js'
import { runDemo } from './support/demo-process.js'
import { waitFor } from './support/wait-for.js'

const ADDRESS = '0x[0-9a-f]{40}'
const TX = '0x[0-9a-f]{64}'

/** The demo's lines `payer <a>: <x> DUSDT; payee <b>: <y> DUSDT`, in order, as numbers. */
const balanceLines = (output: string) =>
  [...output.matchAll(new RegExp(`payer (${ADDRESS}): ([0-9.]+) DUSDT; payee (${ADDRESS}): ([0-9.]+) DUSDT`, 'g'))].map(
    (m) => ({ payer: m[1]!, payerBalance: Number(m[2]), payee: m[3]!, payeeBalance: Number(m[4]) }),
  )
const transactions = (output: string) =>
  [...output.matchAll(new RegExp(`settled ([0-9.]+) DUSDT, transaction (${TX}|\\(none\\))`, 'g'))].map((m) => ({
    amount: Number(m[1]),
    hash: m[2]!,
  }))

describe('dev mode: `npm run demo -- --permit2` and `-- --upto` (real app, its own anvils and Postgres)', function () {
  this.timeout(240_000)
  let dataDir: string
  let app: AppProcess
  let session: { networks: Array<{ name: string; rpcUrl: string }>; payers: Array<{ address: string }> }
  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'x402-dev-'))
    // As root, embedded Postgres runs as the `postgres` user, which must be able to enter the directory.
    await chmod(dataDir, 0o755)
    app = await spawnApp({ DATA_DIR: dataDir, RPC_URL: '', DATABASE_URL: '', LOG_LEVEL: 'warn' }, 120_000)
    // The session file is written right after the ready line, before the demo payers are printed.
    await waitFor('the dev session', async () => (app.output().includes('dev-only demo payers') ? true : undefined))
    session = JSON.parse(await readFile(path.join(dataDir, 'dev-session.json'), 'utf8')) as typeof session
  })
  after(async () => {
    if (app && app.child.exitCode === null) await app.kill('SIGINT')
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  const receiptOf = (hash: string) =>
    createPublicClient({ transport: http(session.networks[0]!.rpcUrl) }).getTransactionReceipt({ hash: hash as Hex })

  it('--permit2: DUSDT through the exact proxy, by the approved payer, then by one with a sponsored permit', async () => {
    const { code, output } = await runDemo(dataDir, ['--permit2'])
    expect(code, output).to.equal(0)
    expect(output).to.include('(allowance to Permit2: unlimited)')
    expect(output).to.include('(allowance to Permit2: none; it signs an EIP-2612 permit')
    expect(output.match(/verify → 200 \{ isValid: true/g), output).to.have.length(2)
    const lines = balanceLines(output)
    expect(
      lines.map((l) => [l.payer, l.payerBalance, l.payeeBalance]),
      output,
    ).to.deep.equal([
      [session.payers[0]!.address, 1000, 0],
      [session.payers[0]!.address, 999, 1],
      [session.payers[1]!.address, 1000, 0],
      [session.payers[1]!.address, 999, 1],
    ])
    const settled = transactions(output)
    expect(settled.map((s) => s.amount)).to.deep.equal([1, 1])
    for (const [i, { hash }] of settled.entries()) {
      const receipt = await receiptOf(hash)
      expect(receipt).to.include({ status: 'success', to: CANONICAL_PERMIT2_CONTRACTS.exactProxy })
      const logs = parseEventLogs({ abi: erc20Abi, logs: receipt.logs })
      const transfers = logs.filter((log) => log.eventName === 'Transfer')
      expect(
        transfers.map((log) => [log.args.from.toLowerCase(), log.args.to.toLowerCase(), log.args.value]),
      ).to.deep.equal([[session.payers[i]!.address, lines[2 * i]!.payee, 1_000_000n]])
      // The sponsored one: the payer's permit (an Approval to Permit2) rode in the same transaction.
      const approvals = logs.filter((log) => log.eventName === 'Approval' && log.args.value === 1_000_000n)
      expect(approvals, `approvals in ${hash}`).to.have.length(i === 1 ? 1 : 0)
    }
  })

  it('--upto: a maximum of 5 signed, 1.25 settled by the advertised key; another settled with 0 moves nothing', async () => {
    const supported = (await (await fetch(`${app.url}/supported`)).json()) as { signers: Record<string, string[]> }
    const key = supported.signers[session.networks[0]!.name]![0]!
    const { code, output } = await runDemo(dataDir, ['--upto'])
    expect(code, output).to.equal(0)
    expect(output.match(new RegExp(`signs at most 5 DUSDT for facilitator ${key}`, 'g')), output).to.have.length(2)
    const [before1, after1, before2, after2] = balanceLines(output)
    expect(after1!.payerBalance).to.equal(before1!.payerBalance - 1.25)
    expect([before1!.payeeBalance, after1!.payeeBalance]).to.deep.equal([0, 1.25])
    expect([after2!.payerBalance, after2!.payeeBalance]).to.deep.equal([before2!.payerBalance, 0])
    const [charged, waived] = transactions(output)
    expect(charged!.amount).to.equal(1.25)
    expect(waived).to.deep.equal({ amount: 0, hash: '(none)' })
    expect(await receiptOf(charged!.hash)).to.include({
      status: 'success',
      from: key,
      to: CANONICAL_PERMIT2_CONTRACTS.uptoProxy,
    })
  })
})
