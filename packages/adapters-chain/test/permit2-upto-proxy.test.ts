import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { mined, revertReasonOf } from './demo-token-calls.js'
import { permit2Chain } from './permit2-chain.js'
import {
  balanceOf,
  customError,
  officialPermit2Payload,
  permit2NonceUsed,
  transfersIn,
  uptoSettleCall,
} from './permit2-payments.js'

const PAYER_UNITS = 10_000_000n
const MAXIMUM = 1_000_000n

// An `upto` payment made by @x402/evm's own UptoEvmScheme: the payer permits a maximum, the facilitator named in the
// witness settles what was used, and nobody else may pick the amount.
describe('x402UptoPermit2Proxy: settling less than the permitted maximum (anvil)', () => {
  const t = permit2Chain(PAYER_UNITS)
  const payTo: Address = '0x00000000000000000000000000000000000000dd'

  const signedUpto = (payer: number) =>
    officialPermit2Payload('upto', t.chain.payers[payer]!, t.suite.chainId, {
      token: t.dusdt.address,
      amount: MAXIMUM,
      payTo,
      facilitator: t.chain.facilitator.address,
    })

  it('moves only the amount settled, not the maximum, and spends the nonce', async () => {
    const { chain, rpc, suite, dusdt } = t
    const payer = chain.payers[0]!
    const signed = await signedUpto(0)
    expect(signed.permit2Authorization.spender.toLowerCase()).to.equal(suite.uptoProxy)
    expect(signed.permit2Authorization.witness.facilitator?.toLowerCase()).to.equal(chain.facilitator.address)
    const used = 250_001n
    const payeeBefore = await balanceOf(rpc, dusdt.address, payTo)

    const receipt = await mined(rpc, uptoSettleCall(suite, chain.facilitator.address, signed, used))

    expect(transfersIn(receipt, dusdt.address)).to.deep.equal([{ from: payer.address, to: payTo, value: used }])
    expect(await balanceOf(rpc, dusdt.address, payTo)).to.equal(payeeBefore + used)
    expect(await balanceOf(rpc, dusdt.address, payer.address)).to.equal(PAYER_UNITS - used)
    expect(await permit2NonceUsed(rpc, suite, payer.address, BigInt(signed.permit2Authorization.nonce))).to.equal(true)
    // The rest of the maximum cannot be taken later with the same authorization.
    const rest = uptoSettleCall(suite, chain.facilitator.address, signed, MAXIMUM - used)
    expect(await revertReasonOf(rpc, rest)).to.equal(customError('InvalidNonce()'))
  })

  it('lets only the facilitator in the witness settle, and never above the maximum', async () => {
    const { chain, rpc, suite, dusdt } = t
    const payer = chain.payers[1]!
    const signed = await signedUpto(1)
    const other = chain.payers[0]!.address
    expect(await revertReasonOf(rpc, uptoSettleCall(suite, other, signed, 1n))).to.equal(
      customError('UnauthorizedFacilitator()'),
    )
    expect(await revertReasonOf(rpc, uptoSettleCall(suite, chain.facilitator.address, signed, MAXIMUM + 1n))).to.equal(
      customError('AmountExceedsPermitted()'),
    )
    // A witness naming another facilitator is not the one the payer signed.
    const renamed = {
      ...signed,
      permit2Authorization: {
        ...signed.permit2Authorization,
        witness: { ...signed.permit2Authorization.witness, facilitator: other },
      },
    }
    expect(await revertReasonOf(rpc, uptoSettleCall(suite, other, renamed, 1n))).to.equal(
      customError('InvalidSigner()'),
    )
    expect(await balanceOf(rpc, dusdt.address, payer.address)).to.equal(PAYER_UNITS)

    await mined(rpc, uptoSettleCall(suite, chain.facilitator.address, signed, MAXIMUM))
    expect(await balanceOf(rpc, dusdt.address, payer.address)).to.equal(PAYER_UNITS - MAXIMUM)
  })
})
