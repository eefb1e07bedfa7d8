import { x402Client } from '@x402/core/client'
import type { HTTPFacilitatorClient } from '@x402/core/http'
import { x402ResourceServer } from '@x402/core/server'
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types'
import { ExactEvmScheme, toClientEvmSigner } from '@x402/evm'
import { privateKeyToAccount } from 'viem/accounts'
import { anvilRpc, hasPendingTransaction } from './chain-control.js'
import { PAYEE, type TestFacilitator } from './test-facilitator.js'
import { waitFor } from './wait-for.js'

const caip2Of = (f: TestFacilitator) => `eip155:${f.chain.chainId}` as `${string}:${string}`

/** The `exact` requirements of one USD (DemoUsd on the test chain) to PAYEE, as a resource server states them. */
export const exactRequirements = (f: TestFacilitator): PaymentRequirements => ({
  scheme: 'exact',
  network: caip2Of(f),
  amount: '1000000',
  asset: f.chain.tokenAddress,
  payTo: PAYEE,
  maxTimeoutSeconds: 60,
  extra: { name: f.domain.name, version: f.domain.version },
})

/** What the official client (`@x402/core`, `@x402/evm`) signs for payer `payer` against `exactRequirements`. */
export const officialPayment = (
  f: TestFacilitator,
  payer: number,
  extensions?: Record<string, unknown>,
): Promise<PaymentPayload> =>
  new x402Client()
    .register('eip155:*', new ExactEvmScheme(toClientEvmSigner(privateKeyToAccount(f.chain.payers[payer]!.privateKey))))
    .setSpendControls({ allowedAssets: [{ network: caip2Of(f), asset: f.chain.tokenAddress }] })
    .createPaymentPayload({
      x402Version: 2,
      resource: { url: 'https://api.example/paid' },
      accepts: [exactRequirements(f)],
      ...(extensions === undefined ? {} : { extensions }),
    })

/** Anvil does not mine on its own in these tests: the transfer waits in the pool until this mines it. */
export const minePendingTransfer = async (f: TestFacilitator): Promise<void> => {
  await waitFor('the transfer in the pool', async () =>
    (await hasPendingTransaction(f.chain.rpcUrl, f.chain.facilitator.address)) ? true : undefined,
  )
  await anvilRpc(f.chain.rpcUrl, 'evm_mine')
}

/**
 * The official resource server over the official client as it is, seen from outside: each settle answer recorded in
 * `answers`; after a 202 `settlement_pending` the block arrives (before the server's automatic retry).
 */
export const resourceServerMiningOnPending = async (f: TestFacilitator, official: HTTPFacilitatorClient) => {
  const answers: SettleResponse[] = []
  const observed = {
    verify: official.verify.bind(official),
    getSupported: official.getSupported.bind(official),
    settle: async (payload: PaymentPayload, required: PaymentRequirements) => {
      const answer = await official.settle(payload, required)
      answers.push(answer)
      if (answer.errorReason === 'settlement_pending') await minePendingTransfer(f)
      return answer
    },
  }
  const server = new x402ResourceServer(observed)
  await server.initialize()
  return { server, answers }
}
