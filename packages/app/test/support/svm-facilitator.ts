import { writeFile, mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Server } from 'node:http'
import { generateKeyPairSigner, lamports, type KeyPairSigner } from '@solana/kit'
import { x402Client } from '@x402/core/client'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { ExactSvmScheme } from '@x402/svm/exact/client'
import {
  extractableKeyPair,
  LOCAL_SVM_NETWORK,
  LocalSvm,
  serveSvmJsonRpc,
} from '@x402-facilitator/adapters-chain/testing/svm'
import { startTestFacilitator, type TestFacilitator } from './test-facilitator.js'

/** The local Solana chain served as an operator's Solana network: its settings, and the fee payer's key in a file. */
export interface LocalSolana {
  readonly svm: LocalSvm
  readonly rpcUrl: string
  readonly feePayer: KeyPairSigner
  /** SOLANA_NETWORKS and SOLANA_FEE_PAYER_KEYS_FILE for the app. */
  readonly env: Record<string, string>
  /** Its node answers nothing (503) while down. */
  readonly setDown: (down: boolean) => void
  readonly stop: () => Promise<void>
}

/**
 * The real SVM behind the local JSON-RPC, slots every `slotMs` (a blockhash lives 150 of them: 15 s, ample on a busy
 * machine), a fee payer funded with 10 SOL.
 */
export const startLocalSolana = async (slotMs = 100): Promise<LocalSolana> => {
  const svm = await LocalSvm.start()
  const { url: rpcUrl, server, setDown } = await serveSvmJsonRpc(svm)
  svm.run(slotMs)
  const { signer: feePayer, secret } = await extractableKeyPair()
  svm.svm.airdrop(feePayer.address, lamports(10_000_000_000n))
  const keysFile = join(await mkdtemp(join(tmpdir(), 'svm-keys-')), 'fee-payers')
  await writeFile(keysFile, `${secret}\n`, { mode: 0o600 })
  const network = {
    caip2: LOCAL_SVM_NETWORK,
    rpcUrls: [rpcUrl],
    tokens: [{ address: svm.mint, symbol: 'USDC', decimals: 6 }],
  }
  return {
    svm,
    rpcUrl,
    feePayer,
    setDown,
    env: {
      SOLANA_NETWORKS: JSON.stringify([network]),
      SOLANA_FEE_PAYER_KEYS_FILE: keysFile,
      SOLANA_STATUS_POLL_MS: '20',
    },
    stop: async () => {
      svm.stop()
      server.closeAllConnections()
      await new Promise<void>((resolve) => (server as Server).close(() => resolve()))
    },
  }
}

export interface SvmFacilitator extends Omit<LocalSolana, 'env' | 'stop'> {
  readonly f: TestFacilitator
  /** The `exact` requirements of `amount` of the local mint to `payTo`, as a resource server states them. */
  readonly requirements: (payTo: string, amount?: string) => PaymentRequirements
  /** What the official client (@x402/core, @x402/svm 2.27) builds for `payer` against `requirements`. */
  readonly officialPayment: (payer: KeyPairSigner, requirements: PaymentRequirements) => Promise<PaymentPayload>
  /** A payee whose token account exists (the exact scheme never creates it). */
  readonly payee: () => Promise<string>
  readonly stop: () => Promise<void>
}

/**
 * The real app serving an EVM network (anvil) and the local Solana chain (the real SVM behind the local JSON-RPC,
 * slots every `slotMs`), its fee payer's key in a key file, its journal on Postgres: configured as an operator would.
 */
/** What a payment on the local Solana chain is made with: requirements, the official client's payload, a payee. */
export const solanaPayments = ({ svm, rpcUrl, feePayer }: Pick<LocalSolana, 'svm' | 'rpcUrl' | 'feePayer'>) => ({
  /** The `exact` requirements of `amount` of the local mint to `payTo`, as a resource server states them. */
  requirements: (payTo: string, amount = '1000000'): PaymentRequirements => ({
    scheme: 'exact',
    network: LOCAL_SVM_NETWORK,
    asset: svm.mint,
    payTo,
    amount,
    maxTimeoutSeconds: 60,
    extra: { feePayer: feePayer.address },
  }),
  /** What the official client (@x402/core, @x402/svm 2.27) builds for `payer` against `required`. */
  officialPayment: (payer: KeyPairSigner, required: PaymentRequirements): Promise<PaymentPayload> =>
    new x402Client()
      .register('solana:*', new ExactSvmScheme(payer, { rpcUrl }))
      .setSpendControls({ allowedAssets: [{ network: LOCAL_SVM_NETWORK, asset: svm.mint }] })
      .createPaymentPayload({ x402Version: 2, resource: { url: 'https://api.example/paid' }, accepts: [required] }),
  /** A payee whose token account exists (the exact scheme never creates it). */
  payee: async (): Promise<string> => {
    const payTo = (await generateKeyPairSigner()).address
    await svm.openTokenAccount(payTo)
    return payTo
  },
})

export const startSvmFacilitator = async (env: Record<string, string> = {}, slotMs = 100): Promise<SvmFacilitator> => {
  const solana = await startLocalSolana(slotMs)
  const f = await startTestFacilitator({ ...solana.env, ...env })
  const { svm, rpcUrl, feePayer, setDown } = solana
  return {
    f,
    svm,
    rpcUrl,
    feePayer,
    setDown,
    ...solanaPayments(solana),
    stop: async () => {
      await f.stop()
      await solana.stop()
    },
  }
}
