// The smart-wallet payers of the wallet-verify phase: DemoSmartWallets (ERC-1271, docs/ARCHITECTURE.md §3 rule 7),
// each owned by one of the bench's payer keys and holding the demo token, deployed and funded from the node's first
// unlocked account (the demo token's owner).
import { demoSmartWalletAbi, demoSmartWalletBytecode, demoUsdAbi } from '@x402-facilitator/adapters-chain'
import { encodeDeployData, encodeFunctionData } from 'viem'
import { say } from '../basics.mjs'
import { sendMined } from './chain.mjs'

/** Token units minted to each wallet: the demo payers' amount. */
const WALLET_BALANCE = 10n ** 15n

/**
 * `count` wallets as payers for signBodies: { address (the wallet), privateKey (its owner's key: what signs) }. The
 * owners are the chain's payers taken in turn.
 */
export const setUpSmartWallets = async ({ chain, rpc }, count) => {
  if (!chain.demoToken)
    throw new Error(
      'the wallet-verify phase mints the demo token to its wallets: not with ASSET_ADDRESS (drop it from --phases)',
    )
  say(`deploying ${count} smart wallets (DemoSmartWallet, ERC-1271) owned by payer keys, each funded…`)
  const [deployer] = await rpc.call('eth_accounts')
  const wallets = []
  for (let i = 0; i < count; i++) {
    const owner = chain.payers[i % chain.payers.length]
    const data = encodeDeployData({ abi: demoSmartWalletAbi, bytecode: demoSmartWalletBytecode, args: [owner.address] })
    const { contractAddress } = await sendMined(rpc, deployer, { data })
    const address = contractAddress.toLowerCase()
    await sendMined(rpc, deployer, {
      to: chain.token,
      data: encodeFunctionData({ abi: demoUsdAbi, functionName: 'mint', args: [address, WALLET_BALANCE] }),
    })
    wallets.push({ address, privateKey: owner.privateKey })
  }
  return wallets
}
