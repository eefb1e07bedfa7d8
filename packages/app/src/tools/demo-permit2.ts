import { signPermit2Payment, type Permit2PaymentRequirements } from '@x402-facilitator/adapters-chain'
import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import {
  demoToken,
  fail,
  freshAddress,
  post,
  type DevSession,
  type NetworkOfSession,
  type TokenOfSession,
} from './demo-session.js'

// The Permit2 demos (`npm run demo -- --permit2` / `-- --upto`): payloads as @x402/evm 2.27's client makes them
// (`signPermit2Payment`: the official client is a dev dependency, not there at run time), posted in the x402 v2 dialect.

const RESOURCE = { url: 'http://localhost/demo-resource' }

const requirementsFor = (
  network: NetworkOfSession,
  token: TokenOfSession,
  domain: { name: string; version: string },
  scheme: 'exact' | 'upto',
  amount: bigint,
  facilitatorAddress?: Address,
): Permit2PaymentRequirements => {
  if (!/^eip155:\d+$/.test(network.name)) fail(`network ${network.name} is not named by its CAIP-2 id`)
  return {
    scheme,
    network: network.name,
    amount: amount.toString(),
    asset: token.address,
    payTo: freshAddress(),
    maxTimeoutSeconds: 120,
    extra: {
      name: domain.name,
      version: domain.version,
      assetTransferMethod: 'permit2',
      ...(facilitatorAddress ? { facilitatorAddress } : {}),
    },
  }
}

const bodyOf = (payload: unknown, requirements: Permit2PaymentRequirements) => ({
  x402Version: 2,
  paymentPayload: payload,
  paymentRequirements: requirements,
})

const printTransaction = (answer: Record<string, unknown>, units: (n: bigint) => string) =>
  console.log(
    answer.success === true
      ? `settled ${units(BigInt(String(answer.amount)))}, transaction ${answer.transaction === '' ? '(none)' : String(answer.transaction)}`
      : `not settled: ${String(answer.errorReason)}`,
  )

const allowanceText = (allowance: bigint) =>
  allowance === 0n ? 'none' : allowance === 2n ** 256n - 1n ? 'unlimited' : `${allowance} units`

/** Permit2 `exact`: from the payer who approved Permit2, then from one who did not (eip2612GasSponsoring). */
export const payByPermit2 = async (session: DevSession, network: NetworkOfSession, chosen: TokenOfSession) => {
  const token = await demoToken(network, chosen, 'permit2')
  const payers = [
    { payer: session.payers[0]!, sponsored: false },
    { payer: session.payers[1] ?? fail('dev mode started fewer than 2 payers'), sponsored: true },
  ]
  for (const { payer, sponsored } of payers) {
    const requirements = requirementsFor(network, chosen, token.domain, 'exact', 10n ** BigInt(chosen.decimals))
    const allowance = await token.permit2Allowance(payer.address)
    console.log(
      `\nPermit2 exact from ${payer.address} (allowance to Permit2: ${allowanceText(allowance)}` +
        (sponsored ? '; it signs an EIP-2612 permit the facilitator sends with the payment)' : ')'),
    )
    const payload = await signPermit2Payment({
      privateKey: payer.privateKey as Hex,
      requirements,
      resource: RESOURCE,
      // The 402 declares gas sponsoring: the client signs a permit only when its allowance falls short.
      ...(sponsored ? { extensions: { eip2612GasSponsoring: { info: {}, schema: {} } }, rpcUrl: network.rpcUrl } : {}),
    })
    if (sponsored && payload.extensions?.eip2612GasSponsoring === undefined)
      console.log('(this payer already has an allowance: no permit needed)')
    const payTo = requirements.payTo as Address
    await token.balances(payer.address, payTo)
    await post(session, 'verify', bodyOf(payload, requirements))
    printTransaction(await post(session, 'settle', bodyOf(payload, requirements)), token.units)
    await token.balances(payer.address, payTo)
  }
}

/**
 * The key an `upto` witness must name: `/supported`'s upto kind for the network (`extra.facilitatorAddress`).
 */
const uptoFacilitator = async (session: DevSession, network: string): Promise<Address> => {
  const response = await fetch(`${session.url}/api/facilitator/supported`)
  const supported = (await response.json()) as {
    kinds?: Array<{ scheme: string; network: string; extra?: { facilitatorAddress?: Address } }>
  }
  const kind = supported.kinds?.find((k) => k.scheme === 'upto' && k.network === network)
  return kind?.extra?.facilitatorAddress ?? fail(`/supported names no upto facilitator for ${network}`)
}

/** `upto`: a maximum signed and less settled; then another settled with 0 (no transaction, nothing moves). */
export const payUpto = async (session: DevSession, network: NetworkOfSession, chosen: TokenOfSession) => {
  const token = await demoToken(network, chosen, 'permit2')
  const facilitator = await uptoFacilitator(session, network.name)
  const unit = 10n ** BigInt(chosen.decimals)
  const payer = session.payers[0]!
  for (const charged of [(unit * 5n) / 4n, 0n]) {
    const maximum = requirementsFor(network, chosen, token.domain, 'upto', 5n * unit, facilitator)
    console.log(
      `\nupto from ${payer.address}: signs at most ${token.units(5n * unit)} for facilitator ${facilitator}; ` +
        `the resource server settles ${token.units(charged)}`,
    )
    const payload = await signPermit2Payment({
      privateKey: payer.privateKey as Hex,
      requirements: maximum,
      resource: RESOURCE,
    })
    const payTo = maximum.payTo as Address
    await token.balances(payer.address, payTo)
    await post(session, 'verify', bodyOf(payload, maximum))
    const used = { ...maximum, amount: charged.toString() }
    printTransaction(await post(session, 'settle', bodyOf(payload, used)), token.units)
    await token.balances(payer.address, payTo)
  }
}
