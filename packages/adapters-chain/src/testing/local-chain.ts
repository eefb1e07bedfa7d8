import {
  CanonicalAddress,
  CanonicalBytes32,
  type EvmAddress as Address,
  type Bytes32,
  type Hex,
} from '@x402-facilitator/domain'
import { encodeDeployData, encodeFunctionData, numberToHex } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { startAnvil } from './anvil-process.js'
import { makeChainRpc, type ChainRpc } from '../evm/rpc/chain-rpc.js'
import { demoUsdAbi, demoUsdBytecode } from '../generated/demo-usd.js'
import { lowerCase } from '../evm/hex-bytes.js'
import { setUpLocalSmartWallets, type LocalSmartWallets } from './local-smart-wallets.js'
import { decodeAnswer, fieldOf } from '../evm/rpc/rpc-failure.js'
import { deploySettler } from '../evm/settler/settler-deployment.js'

export interface LocalAccount {
  readonly address: Address
  readonly privateKey: Hex
}

export interface LocalChain {
  readonly rpcUrl: string
  readonly chainId: number
  readonly tokenAddress: Address
  readonly tokenName: string
  readonly tokenSymbol: string
  /** Signs and pays gas for settlements; holds ETH, no tokens. */
  readonly facilitator: LocalAccount
  /** Hold tokens (and a little ETH, to cancel authorizations themselves). */
  readonly payers: ReadonlyArray<LocalAccount>
  /** Multicall3 at its canonical address, the demo wallet factory, a deployed and a counterfactual demo wallet. */
  readonly smartWallets: LocalSmartWallets
  /**
   * With `settler: true`: the BatchSettler of the demo token, owned by the facilitator key, which alone may call it.
   */
  readonly settlerAddress?: Address
  /** The tokens of `moreTokens`, minted to the payers as the first is (with `settler`, each with its own). */
  readonly moreTokens: ReadonlyArray<LocalToken>
  /** The anvil process, e.g. to SIGSTOP / SIGCONT it. */
  readonly anvilPid: number
  /** SIGSTOP, resolved once anvil is stopped (the signal alone is asynchronous). */
  readonly pause: () => Promise<void>
  /** SIGCONT. */
  readonly resume: () => void
  /** Mints more of the token (the owner is anvil's first unlocked account). */
  readonly mint: (to: Address, value: bigint) => Promise<void>
  readonly stop: () => Promise<void>
}

/** A demo EIP-3009 token of the local chain beside the first. */
export interface LocalToken {
  readonly address: Address
  readonly name: string
  readonly symbol: string
  readonly settlerAddress?: Address
  readonly mint: (to: Address, value: bigint) => Promise<void>
}

export interface StartLocalChainOptions {
  readonly chainId?: number
  readonly payers?: number
  /** Token units (6 decimals) minted to each payer [1 000 tokens]. */
  readonly payerBalance?: bigint
  readonly facilitatorPrivateKey?: Hex
  /** Wei given to the facilitator [100 ETH]. */
  readonly facilitatorEth?: bigint
  /** More keys of a facilitator key pool: each funded as the facilitator is and, with `settler`, allowed to settle. */
  readonly moreFacilitatorKeys?: ReadonlyArray<Hex>
  readonly tokenName?: string
  readonly tokenSymbol?: string
  /** Seconds between blocks; unset: a block per transaction. */
  readonly blockTimeSeconds?: number
  /**
   * Deploy a BatchSettler for the demo token as `npm run deploy-settler` does, from the facilitator key (its first two
   * transactions) [false].
   */
  readonly settler?: boolean
  /** More demo tokens (e.g. a EURC-like one beside the USDC-like first), each deployed and minted as the first. */
  readonly moreTokens?: ReadonlyArray<{ readonly name: string; readonly symbol: string }>
}

const account = (privateKey: Hex): LocalAccount => ({ privateKey, address: lowerCase(privateKeyToAddress(privateKey)) })

/** The receipt of a set-up transaction, once mined (as the node wrote it). */
const waitForReceipt = async (rpc: ChainRpc, hash: Bytes32): Promise<unknown> => {
  for (let i = 0; i < 400; i++) {
    const receipt = await rpc.read('eth_getTransactionReceipt', [hash])
    if (receipt) {
      if (fieldOf(receipt, 'status') !== '0x1') throw new Error(`local chain set-up transaction ${hash} reverted`)
      return receipt
    }
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`local chain set-up transaction ${hash} was not mined`)
}

/**
 * Dev mode and every chain test: anvil on a free loopback port, the demo EIP-3009 token deployed, payers holding
 * tokens and a facilitator account holding ETH; Multicall3, the demo wallet factory and two demo smart wallets; on
 * request the demo token's batch settler.
 */
export const startLocalChain = async (options: StartLocalChainOptions = {}): Promise<LocalChain> => {
  const chainId = options.chainId ?? 31337
  const anvil = await startAnvil({ chainId, blockTimeSeconds: options.blockTimeSeconds })
  const rpc = makeChainRpc({ rpcUrl: anvil.rpcUrl, rpcTimeoutMs: 10_000 })
  try {
    const accounts = await rpc.read('eth_accounts')
    const owner: unknown = Array.isArray(accounts) ? accounts[0] : undefined
    if (!owner) throw new Error('anvil has no unlocked account')
    const tokenName = options.tokenName ?? 'Demo USD'
    const tokenSymbol = options.tokenSymbol ?? 'DUSD'
    const send = async (tx: { to?: Address; data: Hex }): Promise<Bytes32> =>
      decodeAnswer(
        CanonicalBytes32,
        'the hash of a set-up transaction',
        await rpc.write('eth_sendTransaction', [{ from: owner, ...tx }]),
      )

    const deployToken = async (name: string, symbol: string) => {
      const deployment = await send({
        data: encodeDeployData({ abi: demoUsdAbi, bytecode: demoUsdBytecode, args: [name, symbol] }),
      })
      const contractAddress = fieldOf(await waitForReceipt(rpc, deployment), 'contractAddress')
      if (!contractAddress) throw new Error(`the demo token ${symbol} was not deployed`)
      const address = decodeAnswer(CanonicalAddress, 'the address of a demo token', contractAddress)
      const mint = async (to: Address, value: bigint): Promise<void> => {
        const hash = await send({
          to: address,
          data: encodeFunctionData({ abi: demoUsdAbi, functionName: 'mint', args: [to, value] }),
        })
        await waitForReceipt(rpc, hash)
      }
      return { address, mint }
    }
    const { address: tokenAddress, mint } = await deployToken(tokenName, tokenSymbol)
    const more: Array<{ name: string; symbol: string; address: Address; mint: LocalToken['mint'] }> = []
    for (const token of options.moreTokens ?? [])
      more.push({ ...token, ...(await deployToken(token.name, token.symbol)) })

    const facilitator = account(options.facilitatorPrivateKey ?? generatePrivateKey())
    const payers = Array.from({ length: options.payers ?? 3 }, () => account(generatePrivateKey()))
    const pool = [facilitator, ...(options.moreFacilitatorKeys ?? []).map(account)]
    for (const key of pool)
      await rpc.read('anvil_setBalance', [key.address, numberToHex(options.facilitatorEth ?? 100n * 10n ** 18n)])
    for (const payer of payers) {
      await rpc.read('anvil_setBalance', [payer.address, numberToHex(10n ** 18n)])
      for (const token of [{ mint }, ...more]) await token.mint(payer.address, options.payerBalance ?? 1_000_000_000n)
    }
    const sendAndWait = async (tx: { to?: Address; data: Hex }) => waitForReceipt(rpc, await send(tx))
    const smartWallets = await setUpLocalSmartWallets(rpc, sendAndWait, mint, options.payerBalance ?? 1_000_000_000n)
    const settlerOf = async (token: Address) =>
      options.settler
        ? await deploySettler({
            rpcUrl: anvil.rpcUrl,
            token,
            deployerKey: facilitator.privateKey,
            settlers: pool.map((key) => key.address),
            pollingIntervalMs: 20,
          })
        : undefined
    const settler = await settlerOf(tokenAddress)
    const moreTokens: LocalToken[] = []
    for (const { address, name, symbol, mint } of more)
      moreTokens.push({ address, name, symbol, mint, settlerAddress: (await settlerOf(address))?.address })
    return {
      rpcUrl: anvil.rpcUrl,
      chainId,
      tokenAddress,
      tokenName,
      tokenSymbol,
      facilitator,
      payers,
      smartWallets,
      settlerAddress: settler?.address,
      moreTokens,
      anvilPid: anvil.pid,
      pause: anvil.pause,
      resume: anvil.resume,
      mint,
      stop: async () => {
        rpc.close()
        await anvil.stop()
      },
    }
  } catch (error) {
    rpc.close()
    await anvil.stop()
    throw error
  }
}
