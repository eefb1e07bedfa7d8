import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'chai'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { startPermit2Facilitator, type Permit2Facilitator } from './support/permit2-facilitator.js'
import { facilitatorNonces, freshAddress, paymentFromPayer } from './support/payments-on-chain.js'
import { startUpHarness } from './support/start-up-harness.js'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'
import { waitFor } from './support/wait-for.js'

type Body = Record<string, unknown>

const denyListFile = async (text: string): Promise<string> => {
  const file = join(await mkdtemp(join(tmpdir(), 'deny-list-e2e-')), 'deny')
  await writeFile(file, text)
  return file
}

const metricOf = async (f: TestFacilitator, name: string): Promise<string | undefined> => {
  const text = await (await fetch(`${f.base.replace(/\/api\/facilitator$/, '')}/metrics`)).text()
  return new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]
}

/**
 * Verify `body`, then settle it (or `settleBody`): both refused `address_denied` naming `side`, nothing claimed,
 * nothing sent.
 */
const expectDenied = async (f: TestFacilitator, body: Body, side: 'payer' | 'payee', v2 = false, settleBody = body) => {
  const noncesBefore = await facilitatorNonces(f)
  const rowsBefore = (await f.rows()).length
  const verify = await f.post('verify', body)
  const settle = await f.post('settle', settleBody)
  const answers = v2
    ? {
        verify: [verify.status, verify.body.isValid, verify.body.invalidReason, verify.body.invalidMessage],
        settle: [settle.status, settle.body.success, settle.body.errorReason, settle.body.errorMessage],
      }
    : {
        verify: [verify.status, verify.body.valid, verify.body.reasonCode, verify.body.invalidReason],
        settle: [settle.status, settle.body.success, settle.body.errorCode, settle.body.error],
      }
  const message = new RegExp(`^the ${side} 0x[0-9a-f]{40} is denied by this facilitator's operator`)
  expect({ ...answers, nonces: await facilitatorNonces(f), rows: (await f.rows()).length }).to.deep.equal({
    verify: [200, false, 'address_denied', answers.verify[3]],
    settle: [200, false, 'address_denied', answers.settle[3]],
    nonces: noncesBefore,
    rows: rowsBefore,
  })
  expect(answers.verify[3]).to.match(message)
  expect(answers.settle[3]).to.match(message)
}

describe('end to end: operator screening, DENY_LIST_FILE (docs/ARCHITECTURE.md §3 rule S1)', function () {
  this.timeout(120_000)
  const DENIED_PAYEE = freshAddress()
  let f: TestFacilitator
  let file: string
  let deniedPayer: Address
  before(async () => {
    // Payer 1 is denied from the start; the file is written before the app starts, once its payers are known.
    file = await denyListFile(`# screening e2e\n${DENIED_PAYEE}\n`)
    f = await startTestFacilitator({ DENY_LIST_FILE: file, DENY_LIST_RELOAD_MS: '100' }, {}, async (chain) => {
      deniedPayer = chain.payers[1]!.address
      await writeFile(file, `# screening e2e\n${DENIED_PAYEE}\n${deniedPayer.toUpperCase().replace('0X', '0x')}\n`)
      return chain.tokenAddress
    })
  })
  after(() => f?.stop())

  it('a denied payer and a denied payee: address_denied on verify and settle, no row, no transaction', async () => {
    await expectDenied(f, await paymentFromPayer(f, 1, freshAddress(), 1_000_000n), 'payer')
    await expectDenied(f, await paymentFromPayer(f, 0, DENIED_PAYEE, 1_000_000n), 'payee')
  })

  it('the file edited while running: an address taken off settles, one put on is refused (reload and timer)', async () => {
    const body = await paymentFromPayer(f, 1, freshAddress(), 1_000_000n)
    await expectDenied(f, body, 'payer')
    await writeFile(file, `${DENIED_PAYEE}\n`)
    await f.running.denyList!.reload()
    const settled = await f.post('settle', body)
    expect(settled.body).to.include({ success: true })
    // Put back on: the reload timer (every 100 ms) alone picks it up.
    await writeFile(file, `${DENIED_PAYEE}\n${deniedPayer}\n`)
    const again = await paymentFromPayer(f, 1, freshAddress(), 1_000_000n)
    await waitFor('the timer reloads the list', async () => (await f.post('verify', again)).body.valid === false)
    await expectDenied(f, again, 'payer')
  })

  it('a broken edit keeps the last good list and raises the alert metric; a good one clears it', async () => {
    const body = await paymentFromPayer(f, 0, DENIED_PAYEE, 1_000_000n)
    expect(await metricOf(f, 'facilitator_deny_list_reload_failing')).to.equal('0')
    await writeFile(file, `# the payee taken off, but a typo below\n0x12345\n`)
    await f.running.denyList!.reload()
    expect(await metricOf(f, 'facilitator_deny_list_reload_failing')).to.equal('1')
    await expectDenied(f, body, 'payee')
    // Emptied by a truncating save: refused too, the list kept.
    await writeFile(file, '')
    await f.running.denyList!.reload()
    await expectDenied(f, body, 'payee')
    expect(Number(await metricOf(f, 'facilitator_deny_list_reload_failures_total'))).to.be.at.least(2)
    // Emptied on purpose (comments only): nobody denied, the alert cleared.
    await writeFile(file, '# nobody denied\n')
    await f.running.denyList!.reload()
    expect(await metricOf(f, 'facilitator_deny_list_reload_failing')).to.equal('0')
    expect((await f.post('settle', body)).body).to.include({ success: true })
  })
})

describe('end to end: operator screening of Permit2 exact and upto payments', function () {
  this.timeout(120_000)
  const DENIED_PAYEE = freshAddress()
  let f: Permit2Facilitator
  before(async () => {
    // Payer 1 (approved Permit2) is denied; payer 0 may pay, but not the denied payee.
    const file = await denyListFile(`${DENIED_PAYEE}\n`)
    f = await startPermit2Facilitator({ DENY_LIST_FILE: file, DENY_LIST_RELOAD_MS: '3600000' })
    await writeFile(file, `${DENIED_PAYEE}\n${f.chain.payers[1]!.address}\n`)
    await f.running.denyList!.reload()
  })
  after(() => f?.stop())

  it('exact with Permit2: a denied payer, and a denied payee (witness.to), refused with no transaction', async () => {
    const exact = f.requirements('exact', 1_000_000n)
    await expectDenied(f, f.body(await f.pay(1, exact), exact), 'payer', true)
    const toDenied = f.requirements('exact', 1_000_000n, { payTo: DENIED_PAYEE })
    await expectDenied(f, f.body(await f.pay(0, toDenied), toDenied), 'payee', true)
  })

  it('upto: a denied payer, and a denied payee, refused with no transaction (a settle of 0 too)', async () => {
    const maximum = f.requirements('upto', 2_000_000n)
    const payload = await f.pay(1, maximum)
    await expectDenied(f, f.body(payload, maximum), 'payer', true)
    await expectDenied(f, f.body(payload, maximum), 'payer', true, f.body(payload, { ...maximum, amount: '0' }))
    await expectDenied(f, f.body(payload, maximum), 'payer', true, f.body(payload, { ...maximum, amount: '1000000' }))
    const toDenied = f.requirements('upto', 2_000_000n, { payTo: DENIED_PAYEE })
    await expectDenied(f, f.body(await f.pay(0, toDenied), toDenied), 'payee', true)
  })
})

describe('end to end: a bad DENY_LIST_FILE refuses the start', function () {
  this.timeout(120_000)
  const harness = startUpHarness()

  it('naming the file, the line and the reason; an empty file too; and the app stopped what it had started', async () => {
    const bad = await denyListFile(`# ok\n${freshAddress()}\n0xdeadbeef\n`)
    expect(await harness.refusal({ DENY_LIST_FILE: bad })).to.equal(
      `configuration: DENY_LIST_FILE ${bad} line 3: "0xdeadbeef" is not an address (0x and 40 hex digits)`,
    )
    const empty = await denyListFile('')
    expect(await harness.refusal({ DENY_LIST_FILE: empty })).to.match(/DENY_LIST_FILE .* the file is empty/)
    // Refused starts released the key's lock: a good file starts.
    const running = await harness.start({ DENY_LIST_FILE: await denyListFile('# nobody denied\n') })
    expect(running.denyList?.addresses).to.equal(0)
    await running.stop()
  })
})
