import { address, createSolanaRpc } from '@solana/kit'
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { x402Client } from '@x402/core/client'
import { ExactSvmScheme } from '@x402/svm/exact/client'
import { svmKeyPairFromSecret } from '@x402-facilitator/adapters-chain'
import { fail, post, type DevSession } from './demo-session.js'

/** What dev mode writes of its local Solana chain in the dev session (svm/svm-networks.ts). */
export interface SolanaOfSession {
  readonly network: string
  readonly rpcUrl: string
  readonly mint: string
  readonly feePayer: string
  readonly payee: string
  readonly payers: ReadonlyArray<{ readonly address: string; readonly secret: string }>
}

/**
 * `npm run demo -- --network solana:…`: 1.0 USDC from the first demo payer to the demo payee on the local Solana chain,
 * the payment built by the official client (@x402/svm 2.27) over the chain's JSON-RPC, verified and settled here.
 */
export const payOnSolana = async (session: DevSession, solana: SolanaOfSession): Promise<void> => {
  const payer = await svmKeyPairFromSecret(solana.payers[0]?.secret ?? fail('the dev session has no Solana payer'))
  const rpc = createSolanaRpc(solana.rpcUrl)
  const tokensOf = async (owner: string) => {
    const [account] = await findAssociatedTokenPda({
      owner: address(owner),
      mint: address(solana.mint),
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    })
    const { value } = await rpc.getTokenAccountBalance(account).send()
    return `${Number(value.amount) / 10 ** value.decimals} USDC`
  }
  const balances = async () =>
    console.log(
      `payer ${payer.address}: ${await tokensOf(payer.address)}; payee ${solana.payee}: ${await tokensOf(solana.payee)}`,
    )
  const requirements = {
    scheme: 'exact',
    network: solana.network as `${string}:${string}`,
    asset: solana.mint,
    payTo: solana.payee,
    amount: '1000000',
    maxTimeoutSeconds: 60,
    extra: { feePayer: solana.feePayer },
  }
  const paymentPayload = await new x402Client()
    .register('solana:*', new ExactSvmScheme(payer, { rpcUrl: solana.rpcUrl }))
    .setSpendControls({ allowedAssets: [{ network: requirements.network, asset: solana.mint }] })
    .createPaymentPayload({ x402Version: 2, resource: { url: 'https://demo.local/paid' }, accepts: [requirements] })
  const body = { x402Version: 2, paymentPayload, paymentRequirements: requirements }
  await balances()
  await post(session, 'verify', body)
  await post(session, 'settle', body)
  await balances()
}
