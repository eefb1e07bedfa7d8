// Permit2 `exact` payments for the benchmark: x402 v2 bodies whose payloads are those of @x402/evm 2.27's client
// (`signPermit2Payment`, viem), signed with libsecp256k1 over the service's own Permit2 digest for speed; the first of
// each payer is checked equal, byte for byte, to signPermit2Payment's.
import { permit2Digest, signPermit2Payment } from '@x402-facilitator/adapters-chain'
import { CANONICAL_PERMIT2_CONTRACTS } from '@x402-facilitator/domain'
import secp256k1 from 'secp256k1'
import { getAddress } from 'viem'
import { randomNonce } from './payments.mjs'

const RESOURCE = { url: 'http://localhost/bench-resource' }
/** The deadline's distance (2.27: now + maxTimeoutSeconds): as long as the EIP-3009 payments' validity. */
const MAX_TIMEOUT_SECONDS = 1_800

const requirementsOf = ({ network, token, domain, payTo, value }) => ({
  scheme: 'exact',
  network,
  amount: value.toString(),
  asset: token,
  payTo,
  maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
  extra: { name: domain.name, version: domain.version, assetTransferMethod: 'permit2' },
})

/** The payload `signPermit2Payment` makes, from its parts (nonce decimal, deadline a string). */
const payloadOf = (payer, requirements, nonce, deadline, signature) => ({
  x402Version: 2,
  payload: {
    signature,
    permit2Authorization: {
      from: getAddress(payer.address),
      permitted: { token: getAddress(requirements.asset), amount: requirements.amount },
      spender: getAddress(CANONICAL_PERMIT2_CONTRACTS.exactProxy),
      nonce,
      deadline,
      witness: { to: getAddress(requirements.payTo), validAfter: '0' },
    },
  },
  resource: RESOURCE,
  accepted: requirements,
})

/** A payer's signer: (nonce as bytes32, deadline) → signature, checked against signPermit2Payment on a probe. */
const makeFastSigner = async (payer, requirements, chainId) => {
  const key = Buffer.from(payer.privateKey.slice(2), 'hex')
  const domain = { chainId: BigInt(chainId), permit2: CANONICAL_PERMIT2_CONTRACTS.permit2 }
  const permitted = { token: requirements.asset, amount: BigInt(requirements.amount) }
  const witness = { to: requirements.payTo, validAfter: 0n }
  const sign = (nonce, deadline) => {
    const authorization = {
      from: payer.address,
      permitted,
      spender: CANONICAL_PERMIT2_CONTRACTS.exactProxy,
      nonce,
      deadline: BigInt(deadline),
      witness,
    }
    const { signature, recid } = secp256k1.ecdsaSign(permit2Digest('exact', authorization, domain), key)
    return `0x${Buffer.from(signature).toString('hex')}${(27 + recid).toString(16)}`
  }
  const now = Math.floor(Date.now() / 1000)
  const nonce = randomNonce()
  const deadline = String(now + MAX_TIMEOUT_SECONDS)
  const expected = await signPermit2Payment({
    privateKey: payer.privateKey,
    requirements,
    resource: RESOURCE,
    nonce: BigInt(nonce).toString(),
    now,
  })
  const fast = payloadOf(payer, requirements, BigInt(nonce).toString(), deadline, sign(nonce, deadline))
  if (JSON.stringify(fast) !== JSON.stringify(expected)) throw new Error('the fast Permit2 signer disagrees with viem')
  return sign
}

/**
 * `count` x402 v2 bodies paying `value` of `token` to `payTo` through Permit2 `exact`, payers taken in turn; each
 * { json (string), payer, nonce (Permit2's, as bytes32 lower-case hex, as the journal keeps it), value, body }.
 */
export const signPermit2Bodies = async ({ count, payers, payTo, value, network, chainId, token, domain }) => {
  const requirements = requirementsOf({ network, token, domain, payTo, value })
  const signers = await Promise.all(payers.map((payer) => makeFastSigner(payer, requirements, chainId)))
  const deadline = String(Math.floor(Date.now() / 1000) + MAX_TIMEOUT_SECONDS)
  const out = []
  for (let i = 0; i < count; i++) {
    const payer = payers[i % payers.length]
    const nonce = randomNonce()
    const signature = signers[i % payers.length](nonce, deadline)
    const paymentPayload = payloadOf(payer, requirements, BigInt(nonce).toString(), deadline, signature)
    const body = { x402Version: 2, paymentPayload, paymentRequirements: requirements }
    out.push({ json: JSON.stringify(body), payer: payer.address, nonce, value, body })
  }
  return out
}
