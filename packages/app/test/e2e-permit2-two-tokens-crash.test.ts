import { expect } from 'chai'
import { anvilRpc, chainBackToNormal, isSettled } from './support/chain-control.js'
import { postJson, type JsonAnswer } from './support/json-client.js'
import { waitFor } from './support/wait-for.js'
import {
  finishedRows,
  killWithSettlesInFlight,
  restart,
  minedFromKeys,
  servingTwoPermit2Tokens,
  setUpPermit2Chain,
  type Permit2Chain,
} from './support/permit2-chain.js'
import { permit2NonceOf, resignedPermit2 } from './support/permit2-payer-actions.js'
import { PAYEE } from './support/test-facilitator.js'
import { unsettledNonceReport } from './support/unsettled-nonce-report.js'

/**
 * One Permit2 nonce signed for two tokens (DemoUsdt and DemoUsd, both served through Permit2 on one network), the app
 * killed (SIGKILL) while the first token's payments are in flight: after the restart each nonce is one payment, in one
 * token, whichever of the two payloads the callers send again.
 */
const CASES = [
  { mining: true, what: '' },
  // The node mines nothing until the callers have sent both payloads again: the journal alone keeps a nonce one payment.
  { mining: false, what: ', both payloads sent again before anything is mined' },
]

for (const { mining, what } of CASES)
  describe(`a crash (SIGKILL) with Permit2 settles in flight whose nonces are signed for another token too${what}`, function () {
    this.timeout(240_000)
    let setUp: Permit2Chain
    let env: Record<string, string>
    before(async () => {
      setUp = await setUpPermit2Chain()
      env = await servingTwoPermit2Tokens(setUp)
    })
    after(() => setUp?.stop())

    it('each nonce pays once in one token: recovery finishes the first, the other token is refused', async () => {
      const demoUsd = setUp.chain.tokenAddress
      const pairs = await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          const payer = i % setUp.chain.payers.length
          const exact = setUp.requirements('exact', 50_000n)
          const onUsdt = await setUp.pay(payer, exact)
          const key = setUp.chain.payers[payer]!.privateKey
          const onUsd = await resignedPermit2(onUsdt, { token: demoUsd }, key, setUp.chain.chainId)
          const nonce = permit2NonceOf(onUsdt)
          return { nonce, usdt: setUp.body(onUsdt, exact), usd: setUp.body(onUsd, { ...exact, asset: demoUsd }) }
        }),
      )
      const before = { usdt: await setUp.tokenBalance(PAYEE), usd: await setUp.tokenBalance(PAYEE, demoUsd) }

      await killWithSettlesInFlight(
        setUp,
        pairs.map((p) => p.usdt),
        4,
        env,
      )
      if (mining) await chainBackToNormal(setUp.chain)
      const second = await restart(setUp, env)
      try {
        if (mining) await finishedRows(setUp)
        else
          await waitFor('no row claimed and unsent', async () =>
            (await setUp.rows()).some((r) => r.state === 'claimed') ? undefined : true,
          )
        // Both payloads of every pair sent again at once, DemoUsd's first.
        const bodies = pairs.flatMap((p) => [p.usd, p.usdt])
        const answers = await Promise.all(bodies.map((body) => postJson(`${second.url}/settle`, body)))
        // Unmined, a settle sent now is answered 202 pending (the caller's retry gets its success later).
        const accepted = (b: JsonAnswer['body']) =>
          b.success === true ||
          b.errorReason === 'authorization_already_used' ||
          (!mining && b.errorReason === 'settlement_pending')
        for (const answer of answers) expect(accepted(answer.body), JSON.stringify(answer.body)).to.equal(true)
        if (!mining) {
          await chainBackToNormal(setUp.chain)
          await anvilRpc(setUp.chain.rpcUrl, 'evm_mine')
        }
        const rows = await finishedRows(setUp)
        let paid = { usdt: 0n, usd: 0n }
        for (const [i, { nonce }] of pairs.entries()) {
          const settled = rows.filter((r) => BigInt(r.nonce!) === nonce && isSettled(r.state))
          if (settled.length !== 1) {
            const its = [
              { asset: 'DemoUsd', ...answers[2 * i]! },
              { asset: 'DemoUsdt', ...answers[2 * i + 1]! },
            ].map(({ asset, status, body }) => ({ asset, status, body }))
            const report = await unsettledNonceReport(setUp, nonce, its, second.output())
            expect(settled, `nonce ${nonce}: ${report}`).to.have.length(1)
          }
          const token = settled[0]!.asset === demoUsd.toLowerCase() ? 'usd' : 'usdt'
          paid = { ...paid, [token]: paid[token] + 50_000n }
        }
        expect(paid.usdt + paid.usd).to.equal(BigInt(pairs.length) * 50_000n)
        expect(await setUp.tokenBalance(PAYEE)).to.equal(before.usdt + paid.usdt)
        expect(await setUp.tokenBalance(PAYEE, demoUsd)).to.equal(before.usd + paid.usd)
        // Recovery finished what was broadcast before the crash: some nonces paid in DemoUsdt.
        expect(paid.usdt > 0n).to.equal(true)
        expect((await minedFromKeys(setUp)).filter((tx) => tx.reverted)).to.deep.equal([])
      } finally {
        await second.kill('SIGKILL')
        await chainBackToNormal(setUp.chain)
      }
    })
  })
