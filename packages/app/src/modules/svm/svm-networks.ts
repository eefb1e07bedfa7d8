import { makeSvmFeePayer } from '@x402-facilitator/adapters-chain'
import type { SvmFeePayer } from '@x402-facilitator/domain'
import type { Config } from '../../config.js'
import type { ResourceStack } from '../../resource-stack.js'
import { loadFeePayers } from './svm-fee-payers.js'
import { openSvmNetwork, type OpenedSvmNetwork } from './opened-svm-network.js'

type LocalSvmModule = typeof import('@x402-facilitator/adapters-chain/testing/svm')

/** Dev mode's local Solana chain: the real SVM behind a local JSON-RPC endpoint, its mint and funded demo payers. */
export type DevSvm = Awaited<ReturnType<typeof startDevSvm>>

/** SOL each dev fee payer holds: 10 SOL. */
const DEV_FEE_PAYER_LAMPORTS = 10_000_000_000n
/** What each demo payer holds of the demo mint: 1 000 tokens of 6 decimals. */
const DEV_PAYER_UNITS = 1_000_000_000n

/**
 * Dev mode (docs/CONFIGURATION.md, "Solana"): `litesvm` runs the real SVM in process (SPL Token, Token-2022, Associated
 * Token Account, Memo), served over standard JSON-RPC under devnet's id, slots passing every `SOLANA_DEV_SLOT_MS`.
 * It is loaded only here: the service image, which never runs dev mode, does not carry its native binary.
 */
const startDevSvm = async (
  { LocalSvm, LOCAL_SVM_NETWORK, serveSvmJsonRpc, extractableKeyPair }: LocalSvmModule,
  config: Config,
  resources: ResourceStack,
) => {
  const chain = await LocalSvm.start()
  const { url, server } = await serveSvmJsonRpc(chain)
  chain.run(config.SOLANA_DEV_SLOT_MS)
  resources.push('local Solana chain', async () => {
    chain.stop()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  const feePayer = await chain.fundedAccount(0n, DEV_FEE_PAYER_LAMPORTS)
  // Their secrets go in the dev session: `npm run demo -- --network solana:…` signs with them.
  const payers: Array<{ readonly address: string; readonly secret: string }> = []
  for (let i = 0; i < config.DEMO_PAYERS; i++) {
    const { signer, secret } = await extractableKeyPair()
    await chain.fundedAccount(DEV_PAYER_UNITS, undefined, signer)
    payers.push({ address: signer.address, secret })
  }
  // The exact scheme never creates the payee's token account: the demo pays one that has it.
  const payee = await chain.fundedAccount()
  return { chain, rpcUrl: url, network: LOCAL_SVM_NETWORK, feePayer, payers, payee: payee.address as string }
}

/**
 * The Solana networks served, opened: the configured ones with their fee payers, or in dev mode (unless
 * `SOLANA_DEV=false`) the local one it starts.
 */
export const openSvmNetworks = async (
  config: Config,
  devMode: boolean,
  resources: ResourceStack,
  progress: (line: string) => void,
): Promise<{ readonly networks: ReadonlyArray<OpenedSvmNetwork>; readonly devSvm?: DevSvm }> => {
  if (devMode) {
    if (config.SOLANA_DEV !== true) return { networks: [] }
    progress('dev mode: starting a local Solana chain (litesvm)…')
    // The service image carries no litesvm binary: dev mode there serves its EVM chains alone. Only loading it is
    // forgiven; a local chain that loads and then fails stops the start, as any dev chain does.
    const local = await import('@x402-facilitator/adapters-chain/testing/svm').catch((error: unknown) => {
      progress(`dev mode: no local Solana chain (${(error as Error).message})`)
      return undefined
    })
    if (local === undefined) return { networks: [] }
    const dev = await startDevSvm(local, config, resources)
    const feePayers: SvmFeePayer[] = [makeSvmFeePayer(dev.feePayer)]
    const token = { mint: dev.chain.mint, symbol: 'USDC', decimals: 6, minAmount: 1n }
    progress(
      `dev mode: Solana ${dev.network} (devnet's id, served locally at ${dev.rpcUrl}): mint ${dev.chain.mint}, ` +
        `fee payer ${dev.feePayer.address}, ${dev.payers.length} payers funded`,
    )
    const network = { caip2: dev.network, rpcUrls: [dev.rpcUrl], tokens: [token] }
    return { networks: [openSvmNetwork(network, feePayers, config)], devSvm: dev }
  }
  const networks: OpenedSvmNetwork[] = []
  for (const network of config.svmNetworks) {
    const keys = await loadFeePayers(network.feePayerKeysFile ?? config.SOLANA_FEE_PAYER_KEYS_FILE, network.caip2)
    networks.push(openSvmNetwork(network, keys, config))
  }
  return { networks }
}
