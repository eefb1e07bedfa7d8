/**
 * Payloads made by the official clients, @x402/evm 2.27 (`ExactEvmScheme` with `extra.assetTransferMethod: "permit2"`,
 * the same with the 402 declaring `eip2612GasSponsoring`, and `UptoEvmScheme`), payer anvil account 1, token and
 * `payTo` as in packages/app's tests; kept verbatim (the live ones: app test x402-v2-permit2-upto-payloads).
 */
export const EXACT_PERMIT2_PAYLOAD = {
  signature:
    '0xa4842c3d8af0308d89dd9a58ac8bb2d4d96304c3867c2e9824a05f2c99f8b6f03b53689e11701c44f456a8c35c9879a692e7ec555a49fff77ea20d96d0a80d341c',
  permit2Authorization: {
    from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    permitted: { token: '0x5FbDB2315678afecb367f032d93F642f64180aa3', amount: '1000000' },
    spender: '0x402085c248EeA27D92E8b30b2C58ed07f9E20001',
    nonce: '114427573590816546286636498760276347124416631003012783208779909889867175779139',
    deadline: '1795560501',
    witness: { to: '0x00000000000000000000000000000000000BE7eE', validAfter: '0' },
  },
}

export const SPONSORED_EXTENSIONS = {
  eip2612GasSponsoring: {
    info: {
      from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      asset: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      spender: '0x000000000022D473030F116dDEE9F6B43aC78BA3',
      amount: '1000000',
      nonce: '7',
      deadline: '1795560501',
      signature:
        '0x7ded7b86d204dcfebb04e8ea1661d26fd3aa8eed3f1a1d841aea74e541f5da631f8136f2d3206ad6c4872cdfe5a4e7c9b077bbd5641d33b7ff82a8b61d0b39ca1c',
      version: '1',
    },
    schema: {},
  },
}

export const UPTO_PAYLOAD = {
  signature:
    '0x7c2688bc436208fa892b620e738ab48e741880572813b6d5d9e23af3cbce3031444bf47427cf6ec4d55e0ffa9ea8f291df7b338b0afe43f02e00d0d0a732065f1b',
  permit2Authorization: {
    from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    permitted: { token: '0x5FbDB2315678afecb367f032d93F642f64180aa3', amount: '1000000' },
    spender: '0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002',
    nonce: '49721673471422738828890199371450487756081557690650038195800078351515916210817',
    deadline: '1795560501',
    witness: {
      to: '0x00000000000000000000000000000000000BE7eE',
      facilitator: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      validAfter: '0',
    },
  },
}

/** EIP-55 forms of the addresses above (the checksum is keccak, which the domain takes from an adapter). */
export const GOLDEN_CHECKSUMS: Readonly<Record<string, string>> = Object.fromEntries(
  [
    '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    '0x402085c248EeA27D92E8b30b2C58ed07f9E20001',
    '0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002',
    '0x00000000000000000000000000000000000BE7eE',
    '0x000000000022D473030F116dDEE9F6B43aC78BA3',
  ].map((address) => [address.toLowerCase(), address]),
)
