// The chain the benchmark runs on: a local anvil of its own (demo token, funded payers), or the node at RPC_URL, where
// the demo token is deployed and payers funded unless ASSET_ADDRESS, FACILITATOR_PRIVATE_KEY and BENCH_PAYER_KEYS say
// what to use.
import { makeChainRpc, makeRpcTokenReader, demoUsdAbi, demoUsdBytecode } from '@x402-facilitator/adapters-chain'
import { startLocalChain } from '@x402-facilitator/adapters-chain/testing'
import { encodeDeployData, encodeFunctionData, numberToHex } from 'viem'
import { say, sleep } from '../basics.mjs'
import { onCleanUp } from '../cleanup.mjs'
import { accountOf, freshAccount } from '../payments.mjs'
import { makeRpc } from '../rpc.mjs'

/** { rpcUrl, chainId, token, facilitator, payers, anvilPid?, own, demoToken (deployed here: the node's first account mints) } */
export const setUpChain = async ({ payers: payerCount }) => {
  const rpcUrl = process.env.RPC_URL
  if (!rpcUrl) {
    say('starting anvil (demo token, funded payers)…')
    const chain = await startLocalChain({ payers: payerCount, payerBalance: 10n ** 15n })
    onCleanUp(() => chain.stop())
    return {
      rpcUrl: chain.rpcUrl,
      chainId: chain.chainId,
      token: chain.tokenAddress,
      facilitator: chain.facilitator,
      payers: chain.payers,
      anvilPid: chain.anvilPid,
      own: true,
      demoToken: true,
    }
  }
  const rpc = makeRpc(rpcUrl, 2)
  onCleanUp(() => rpc.close())
  const chainId = Number(BigInt(await rpc.call('eth_chainId')))
  if (process.env.ASSET_ADDRESS) {
    const keys = (process.env.BENCH_PAYER_KEYS ?? '').split(',').filter(Boolean)
    if (!process.env.FACILITATOR_PRIVATE_KEY || keys.length === 0)
      throw new Error('with ASSET_ADDRESS, set FACILITATOR_PRIVATE_KEY and BENCH_PAYER_KEYS')
    return {
      rpcUrl,
      chainId,
      token: process.env.ASSET_ADDRESS.toLowerCase(),
      facilitator: accountOf(process.env.FACILITATOR_PRIVATE_KEY),
      payers: keys.map(accountOf),
      own: false,
      demoToken: false,
    }
  }
  return { rpcUrl, chainId, ...(await deployDemoToken(rpc, rpcUrl, payerCount)), own: false, demoToken: true }
}

/** Sends `transaction` from the node's unlocked account `from`; its receipt once mined, or an error if it reverted. */
export const sendMined = async (rpc, from, transaction) => {
  const hash = await rpc.call('eth_sendTransaction', [{ from, ...transaction }])
  for (let i = 0; i < 2_000; i++) {
    const receipt = await rpc.call('eth_getTransactionReceipt', [hash])
    if (receipt) {
      if (receipt.status !== '0x1') throw new Error(`set-up transaction ${hash} reverted`)
      return receipt
    }
    await sleep(25)
  }
  throw new Error(`set-up transaction ${hash} not mined`)
}

/** Deploys the demo token from the node's first unlocked account, funds a fresh facilitator and mints to fresh payers. */
const deployDemoToken = async (rpc, rpcUrl, payerCount) => {
  say(`deploying the demo token on ${rpcUrl}…`)
  const [owner] = await rpc.call('eth_accounts')
  if (!owner)
    throw new Error(
      `${rpcUrl} has no unlocked account: give ASSET_ADDRESS, FACILITATOR_PRIVATE_KEY and BENCH_PAYER_KEYS`,
    )
  const send = (transaction) => sendMined(rpc, owner, transaction)
  const { contractAddress } = await send({
    data: encodeDeployData({ abi: demoUsdAbi, bytecode: demoUsdBytecode, args: ['Demo USD', 'DUSD'] }),
  })
  const token = contractAddress.toLowerCase()
  const facilitator = freshAccount()
  const payers = Array.from({ length: payerCount }, freshAccount)
  await rpc.call('anvil_setBalance', [facilitator.address, numberToHex(10n ** 21n)])
  for (const p of payers) {
    await send({
      to: token,
      data: encodeFunctionData({ abi: demoUsdAbi, functionName: 'mint', args: [p.address, 10n ** 15n] }),
    })
  }
  return { token, facilitator, payers }
}

/** The token's EIP-712 domain, as the service reads it: what every payment is signed for. */
export const readTokenDomain = async (chain) => {
  const reader = makeRpcTokenReader(makeChainRpc({ rpcUrl: chain.rpcUrl }), chain.token)
  const domainEither = await reader.domain()
  if (domainEither._tag !== 'Right') throw new Error(`reading the token domain: ${JSON.stringify(domainEither.left)}`)
  return domainEither.right
}
