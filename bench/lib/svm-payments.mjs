// Solana `exact` payments for the benchmark, built by the official client (@x402/core's x402Client with @x402/svm
// 2.27's ExactSvmScheme, one per payer): each the payer's partially signed transaction (a TransferChecked of the mint
// to the payee's token account, a random memo: every message distinct), its blockhash the chain's latest when built.
import { x402Client } from '@x402/core/client'
import { ExactSvmScheme } from '@x402/svm/exact/client'

const RESOURCE = { url: 'http://localhost/bench-resource' }
/** Units of the mint per payment (0.001 USDC of 6 decimals). */
export const SVM_AMOUNT = 1_000n

/** The `exact` requirements of one payment to `payTo`, as a resource server states them. */
export const svmRequirements = (solana, payTo) => ({
  scheme: 'exact',
  network: solana.network,
  asset: solana.mint,
  payTo,
  amount: SVM_AMOUNT.toString(),
  maxTimeoutSeconds: 60,
  extra: { feePayer: solana.feePayer },
})

/** One official client per payer (each caches the mint's metadata: one JSON-RPC read a payment, its blockhash). */
export const svmClients = (solana) =>
  solana.payers.map((payer) => ({
    payer: payer.address,
    client: new x402Client()
      .register('solana:*', new ExactSvmScheme(payer, { rpcUrl: solana.rpcUrl }))
      .setSpendControls({ allowedAssets: [{ network: solana.network, asset: solana.mint }] }),
  }))

/**
 * `count` payments to `payTo`, the payers in turn, built `parallel` at a time: [{ json (the request body), payer,
 * value }]; fewer when `budgetMs` runs out first (none is begun after it). The oldest one's blockhash is as old as the
 * signing took: build them shortly before sending (a blockhash lives 15 s here).
 */
export const signSvmBodies = async ({ solana, clients, count, payTo, budgetMs = Infinity, parallel = 8 }) => {
  const requirements = svmRequirements(solana, payTo)
  const out = new Array(count)
  const deadline = performance.now() + budgetMs
  let next = 0
  const worker = async () => {
    while (next < count && performance.now() < deadline) {
      const i = next++
      const { payer, client } = clients[i % clients.length]
      const paymentPayload = await client.createPaymentPayload({
        x402Version: 2,
        resource: RESOURCE,
        accepts: [requirements],
      })
      out[i] = {
        json: JSON.stringify({ x402Version: 2, paymentPayload, paymentRequirements: requirements }),
        payer,
        value: SVM_AMOUNT,
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker))
  return out.slice(0, next)
}
