import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { mined, revertReasonOf } from './demo-token-calls.js'
import { permit2Chain } from './permit2-chain.js'
import {
  balanceOf,
  customError,
  exactSettleCall,
  officialPermit2Payload,
  permit2NonceUsed,
  transfersIn,
} from './permit2-payments.js'

const PAYER_UNITS = 10_000_000n

// A Permit2 `exact` payment made by @x402/evm's own client, settled through x402ExactPermit2Proxy at its canonical
// address: the witness binds the payee, Permit2's nonce makes it once only.
describe('x402ExactPermit2Proxy: a Permit2 witness transfer of DUSDT (anvil)', () => {
  const t = permit2Chain(PAYER_UNITS)
  const payTo: Address = '0x00000000000000000000000000000000000000dd'

  it('moves exactly the amount to the payee, once, and marks the Permit2 nonce used', async () => {
    const { chain, rpc, suite, dusdt } = t
    const payer = chain.payers[0]!
    const amount = 1_234_567n
    const signed = await officialPermit2Payload('exact', payer, suite.chainId, { token: dusdt.address, amount, payTo })
    expect(signed.permit2Authorization.spender.toLowerCase()).to.equal(suite.exactProxy)
    const nonce = BigInt(signed.permit2Authorization.nonce)
    expect(await permit2NonceUsed(rpc, suite, payer.address, nonce)).to.equal(false)
    const before = {
      payer: await balanceOf(rpc, dusdt.address, payer.address),
      payee: await balanceOf(rpc, dusdt.address, payTo),
    }

    const settle = exactSettleCall(suite, chain.facilitator.address, signed)
    const receipt = await mined(rpc, settle)

    expect(await balanceOf(rpc, dusdt.address, payTo)).to.equal(before.payee + amount)
    expect(await balanceOf(rpc, dusdt.address, payer.address)).to.equal(before.payer - amount)
    expect(transfersIn(receipt, dusdt.address)).to.deep.equal([{ from: payer.address, to: payTo, value: amount }])
    expect(await permit2NonceUsed(rpc, suite, payer.address, nonce)).to.equal(true)
    // Permit2's InvalidNonce(): the same authorization cannot move money twice.
    expect(await revertReasonOf(rpc, settle)).to.equal(customError('InvalidNonce()'))
    expect(await balanceOf(rpc, dusdt.address, payTo)).to.equal(before.payee + amount)
  })

  it('refuses a payee other than the one the payer signed in the witness', async () => {
    const { chain, rpc, suite, dusdt } = t
    const payer = chain.payers[1]!
    const signed = await officialPermit2Payload('exact', payer, suite.chainId, {
      token: dusdt.address,
      amount: 1_000n,
      payTo,
    })
    const thief: Address = '0x00000000000000000000000000000000000000ee'
    const redirected = {
      ...signed,
      permit2Authorization: {
        ...signed.permit2Authorization,
        witness: { ...signed.permit2Authorization.witness, to: thief },
      },
    }
    // Permit2's InvalidSigner(): the witness hash differs, so the signature recovers someone else.
    expect(await revertReasonOf(rpc, exactSettleCall(suite, chain.facilitator.address, redirected))).to.equal(
      customError('InvalidSigner()'),
    )
    expect(await balanceOf(rpc, dusdt.address, thief)).to.equal(0n)
    expect(await permit2NonceUsed(rpc, suite, payer.address, BigInt(signed.permit2Authorization.nonce))).to.equal(false)
    // The payment as signed still settles.
    await mined(rpc, exactSettleCall(suite, chain.facilitator.address, signed))
    expect(await balanceOf(rpc, dusdt.address, payer.address)).to.equal(PAYER_UNITS - 1_000n)
  })
})
