import * as E from 'fp-ts/lib/Either.js'
import type { FamilyRequest, InfrastructureFailure, ServedNetwork, SettleOutcome } from '@x402-facilitator/domain'
import type { Logger } from 'pino'
import type { DiscoveryHttpDeps } from '../http-deps.js'
import { servedNetworkNamed } from '../served-networks.js'
import type { DeclarationReading } from './declared-resource.js'

/** x402's header of extension outcomes (`specs/extensions/bazaar.md`): base64 JSON keyed by extension. */
export const EXTENSION_RESPONSES = 'EXTENSION-RESPONSES'

/** A reason quotes what the payer wrote: bounded, so the header stays far below any proxy's or client's limit. */
const MAX_REASON_CHARS = 200

type BazaarResponse =
  { readonly status: 'success' | 'processing' } | { readonly status: 'rejected'; readonly rejectedReason: string }

const header = (bazaar: BazaarResponse) => Buffer.from(JSON.stringify({ bazaar })).toString('base64')
const rejected = (reason: string) =>
  header({
    status: 'rejected',
    rejectedReason: reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS - 1)}…` : reason,
  })

const sameAccount = (a: string, b: string) => (/^0x/i.test(a) ? a.toLowerCase() === b.toLowerCase() : a === b)

const readSafely = (declared: () => DeclarationReading): DeclarationReading => {
  try {
    return declared()
  } catch {
    return { _tag: 'Unreadable', reason: 'extensions.bazaar: the declaration could not be read' }
  }
}

/**
 * After a settle: a payment that settled now (not a replay) catalogues what its body declares, and the answer says how
 * in `EXTENSION-RESPONSES`. Never changes the settle's answer, and never holds it longer than `catalogWaitMs`: the
 * money moved whatever the catalog says. A payment to its own payer catalogues nothing (it costs its sender nothing).
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
  const { result, request, logger } = context
  if (discovery === undefined || E.isLeft(result) || result.right._tag !== 'Settled' || result.right.replayed)
    return undefined
  const reading = readSafely(context.declared)
  if (reading._tag === 'None') return undefined
  if (reading._tag === 'Unreadable') return rejected(reading.reason)
  const { payTo, network, asset, scheme } = request.requirements
  if (sameAccount(result.right.payer, payTo)) return rejected('a payment to its own payer is not catalogued')
  const paid = { payTo, network: servedNetworkNamed(context.networks, network)?.caip2 ?? network, asset, scheme }
  const written = discovery
    .catalogResource(reading.declaration, paid)()
    .then((outcome) => {
      if (E.isLeft(outcome))
        logger.warn({ reason: outcome.left.reason }, 'discovery: the catalog did not answer; entry not recorded')
      return outcome
    })
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), discovery.catalogWaitMs)
  })
  const outcome = await Promise.race([written, late]).finally(() => clearTimeout(timer))
  if (outcome === 'late') return header({ status: 'processing' })
  if (E.isLeft(outcome)) return rejected('the catalog did not answer; a later payment records it')
  return outcome.right._tag === 'Catalogued' ? header({ status: 'success' }) : rejected(outcome.right.reason)
}
