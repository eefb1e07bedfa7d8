import type { EvmAddress as Address, Eip712Domain, Hex, SendOutcome, TransferReceipt } from '@x402-facilitator/domain'
import { encodeFunctionData, serializeErc6492Signature } from 'viem'
import { demoSmartWalletFactoryAbi } from '../src/generated/demo-smart-wallet-factory.js'
import type { LocalSmartWallet } from '../src/testing/local-smart-wallets.js'
import { signTransferAuthorization } from '../src/evm/signing/sign-transfer-authorization.js'
import { authorizationFrom } from './fixtures.js'

/** The receipt of a send that was mined. */
export const mined = (outcome: SendOutcome): TransferReceipt => {
  if (outcome._tag !== 'Mined') throw new Error(`expected Mined, got ${outcome._tag}`)
  return outcome.receipt
}

/** An authorization of the wallet, signed by `key` (the owner's, or another), and wrapped as EIP-6492 says. */
export const wrappedPayment = async (
  wallet: LocalSmartWallet,
  domain: Eip712Domain,
  to: Address,
  value: bigint,
  options: { key?: Hex; factoryCalldata?: Hex } = {},
) => {
  const authorization = authorizationFrom({ address: wallet.address, privateKey: wallet.ownerPrivateKey }, to, value)
  const inner = await signTransferAuthorization({
    privateKey: options.key ?? wallet.ownerPrivateKey,
    domain,
    authorization,
  })
  const signature = serializeErc6492Signature({
    address: wallet.factory,
    data: options.factoryCalldata ?? wallet.factoryCalldata,
    signature: inner,
  })
  return { authorization, inner, signature }
}

export const createAccountCall = (owner: Address, salt: bigint): Hex =>
  encodeFunctionData({ abi: demoSmartWalletFactoryAbi, functionName: 'createAccount', args: [owner, salt] })
