import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { tokenReaderContract, transferSubmitterContract } from '@x402-facilitator/domain/chain-contract'
import type { ChainUnderTest } from '@x402-facilitator/domain/chain-contract'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { makeRpcTokenReader, makeRpcTransferSubmitter } from '../src/index.js'
import { freshPayer, startSettlerChain, TOKENS, type SettlerChain } from './batch-settler-calls.js'
import { authorizationFrom, signedBy } from './fixtures.js'

const ONE_ETHER = '0xde0b6b3a7640000'

/** The chain adapter on anvil, with a BatchSettler for the token: what the domain's fakes are held to. */
const onAnvil = (running: SettlerChain): ChainUnderTest => {
  const { chain, rpc, token, settler } = running
  // A fee cap well above the fees it signs at: a replacement has room for its 10 % raise.
  const { privateKey } = chain.facilitator
  const maxFeePerGas = 10n ** 12n
  const submitter = makeRpcTransferSubmitter({ rpc, token: token.address, privateKey, settler, maxFeePerGas })
  return {
    submitter: submitter as ChainUnderTest['submitter'],
    account: submitter.address,
    token: makeRpcTokenReader(rpc, token.address, { facilitator: submitter.address }),
    tokenAddress: token.address,
    chainId: token.domain.chainId,
    payment: async (value, balance = value) => {
      const payer = await freshPayer(token, balance)
      const payee = (await freshPayer(token, 0n)).address
      return signedBy(payer, token.domain, authorizationFrom(payer, payee, value))
    },
    holdBlocks: async () => void (await rpc.read('evm_setAutomine', [false])),
    mineHeld: async () => {
      await rpc.read('evm_mine')
      await rpc.read('evm_setAutomine', [true])
    },
    freshSubmitter: async () => {
      const privateKey = generatePrivateKey()
      const account = privateKeyToAddress(privateKey).toLowerCase() as Address
      await rpc.read('anvil_setBalance', [account, ONE_ETHER])
      return { submitter: makeRpcTransferSubmitter({ rpc, token: token.address, privateKey }), account }
    },
  }
}

for (const [name, deploy] of TOKENS) {
  let running: Promise<SettlerChain> | undefined
  const start = async () => onAnvil(await (running ??= startSettlerChain(deploy)))
  const stop = async () => {
    const { chain, rpc } = await running!
    rpc.close()
    await chain.stop()
  }
  transferSubmitterContract(`the chain adapter on anvil, ${name}`, start)
  tokenReaderContract(`the chain adapter on anvil, ${name}`, start, stop)
}
