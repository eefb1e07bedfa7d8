import { type Hex } from '@x402-facilitator/domain'
import { parseErc6492Signature } from '../src/evm/wallets/erc6492-signature.js'
import { expect } from 'chai'
import { serializeErc6492Signature } from 'viem'

const FACTORY = '0x00000000000000000000000000000000000fac70'
const CALLDATA: Hex = '0x5fbfb9cf0000000000000000000000000000000000000000000000000000000000000001'
const INNER: Hex = `0x${'ab'.repeat(65)}`
const MAGIC = '6492'.repeat(16)
const wrapped = serializeErc6492Signature({ address: FACTORY, data: CALLDATA, signature: INNER })
const word = (n: number): string => n.toString(16).padStart(64, '0')
/** `wrapped` with the 32-byte word at `index` (of the ABI body) replaced. */
const withWord = (index: number, value: string): Hex =>
  `0x${wrapped.slice(2, 2 + index * 64)}${value}${wrapped.slice(2 + (index + 1) * 64)}`
const detailOf = (signature: Hex): string => {
  const parsed = parseErc6492Signature(signature)
  expect(parsed._tag).to.equal('MalformedWrapper')
  return parsed._tag === 'MalformedWrapper' ? parsed.detail : ''
}

describe('the ERC-6492 wrapper decoder (domain, pure)', () => {
  it("reads what viem's serializeErc6492Signature writes: factory, calldata, inner signature", () => {
    expect(parseErc6492Signature(wrapped)).to.deep.equal({
      _tag: 'Wrapped',
      factory: FACTORY,
      factoryCalldata: CALLDATA,
      signature: INNER,
    })
    expect(parseErc6492Signature(wrapped.toUpperCase().replace('0X', '0x') as Hex)).to.deep.include({
      _tag: 'Wrapped',
      factory: FACTORY,
    })
  })

  it('a signature without the magic suffix is not a wrapper (an EOA or ERC-1271 signature)', () => {
    expect(parseErc6492Signature(INNER)).to.deep.equal({ _tag: 'NotWrapped' })
    expect(parseErc6492Signature('0x')).to.deep.equal({ _tag: 'NotWrapped' })
    expect(parseErc6492Signature(wrapped.slice(0, -2) as Hex)).to.deep.equal({ _tag: 'NotWrapped' })
  })

  it('ends with the magic but is not abi.encode(address, bytes, bytes): malformed, with what is wrong', () => {
    expect(detailOf(`0x${MAGIC}`)).to.match(/fewer than the 160/)
    expect(detailOf(`0x${'00'.repeat(7)}${MAGIC}`)).to.match(/not whole 32-byte words/)
    expect(detailOf(withWord(0, `${'ff'.repeat(12)}${FACTORY.slice(2)}`))).to.match(/upper 12 bytes/)
    expect(detailOf(withWord(1, word(0x40)))).to.match(/offset of factoryCalldata is 64, not 96/)
    expect(detailOf(withWord(2, `${'ff'.repeat(32)}`))).to.match(/offset of the inner signature is out of range/)
    expect(detailOf(withWord(3, word(0xffff)))).to.match(/length of factoryCalldata runs past the end/)
    // The calldata is 36 bytes: its second word holds 4 bytes, then 28 bytes of padding.
    expect(detailOf(withWord(5, `${CALLDATA.slice(2 + 64, 2 + 72)}${'01'.repeat(28)}`))).to.match(
      /padding after factoryCalldata is not zero/,
    )
    expect(detailOf(`${wrapped.slice(0, -MAGIC.length)}${word(0)}${MAGIC}` as Hex)).to.match(
      /32 bytes after the inner signature/,
    )
    expect(detailOf(serializeErc6492Signature({ address: FACTORY, data: CALLDATA, signature: '0x' }))).to.match(
      /inner signature is empty/,
    )
  })
})
