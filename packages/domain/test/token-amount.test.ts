import { expect } from 'chai'
import { formatTokenAmount } from '@x402-facilitator/domain'

describe('formatTokenAmount', () => {
  it('writes token units with the decimals of the token', () => {
    expect(formatTokenAmount(500_000n, 6)).to.equal('0.5')
    expect(formatTokenAmount(1_000_000n, 6)).to.equal('1.0')
    expect(formatTokenAmount(1_234_567n, 6)).to.equal('1.234567')
    expect(formatTokenAmount(1n, 6)).to.equal('0.000001')
    expect(formatTokenAmount(0n, 6)).to.equal('0.0')
    expect(formatTokenAmount(42n, 0)).to.equal('42')
  })
})
