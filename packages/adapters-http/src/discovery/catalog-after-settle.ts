import * as E from 'fp-ts/lib/Either.js'
import type { FamilyRequest, InfrastructureFailure, SettleOutcome } from '@x402-facilitator/domain'
import type { Logger } from 'pino'
import type { DiscoveryHttpDeps } from '../http-deps.js'
import { servedNetworkNamed } from '../served-networks.js'
import type { ServedNetwork } from '@x402-facilitator/domain'
import type { DeclarationReading } from './declared-resource.js'

/** x402's header of extension outcomes (`specs/extensions/bazaar.md`): base64 JSON keyed by extension. */
export const EXTENSION_RESPONSES = 'EXTENSION-RESPONSES'

type BazaarResponse = { readonly status: 'success' } | { readonly status: 'rejected'; readonly rejectedReason: string }

const header = (bazaar: BazaarResponse) => Buffer.from(JSON.stringify({ bazaar })).toString('base64')

/**
 * After a settle: a payment that settled now (not a replay) catalogues what its body declares, and the answer says how
 * in `EXTENSION-RESPONSES`. Never changes the settle's answer: the money moved whatever the catalog says.
 */
export const catalogAfterSettle = async (
  discovery: DiscoveryHttpDeps | undefined,
  context: {
    readonly networks: ReadonlyArray<ServedNetwork>
    readonly logger: Logger
    readonly request: FamilyRequest
    readonly result: E.Either<InfrastructureFailure, SettleOutcome>
    readonly declared: () => DeclarationReading
  },
): Promise<string | undefined> => {
  const { result, request } = context
  if (discovery === undefined || E.isLeft(result) || result.right._tag !== 'Settled' || result.right.replayed)
    return undefined
  const reading = context.declared()
  if (reading._tag === 'None') return undefined
  if (reading._tag === 'Unreadable') return header({ status: 'rejected', rejectedReason: reading.reason })
  const { payTo, network, asset, scheme } = request.requirements
  const paid = {
    payTo,
    network: servedNetworkNamed(context.networks, network)?.caip2 ?? network,
    asset,
    scheme,
  }
  const outcome = await discovery.catalogResource(reading.declaration, paid)()
  if (E.isLeft(outcome)) {
    context.logger.warn({ reason: outcome.left.reason }, 'discovery: the catalog did not answer; entry not recorded')
    return header({ status: 'rejected', rejectedReason: 'the catalog did not answer; a later payment records it' })
  }
  return header(
    outcome.right._tag === 'Catalogued'
      ? { status: 'success' }
      : { status: 'rejected', rejectedReason: outcome.right.reason },
  )
}
