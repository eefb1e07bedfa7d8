import * as t from 'io-ts'

/** A body that is structurally malformed (docs/ARCHITECTURE.md §3 rule 0, HTTP 400), naming the field. */
export interface MalformedRequest {
  readonly _tag: 'MalformedRequest'
  readonly reasonCode:
    | 'invalid_payload'
    | 'invalid_payment_requirements'
    | 'invalid_payment_identifier'
    | 'payment_identifier_required'
    /** A network a dialect cannot name onto a served one (x402 v1's names). */
    | 'invalid_network'
  /** Dotted path of the offending field, e.g. `paymentPayload.payload.authorization.value`. */
  readonly field: string
  /** `<field>: <what was wrong>`. */
  readonly message: string
}

const hasNamedFields = (type: t.Decoder<unknown, unknown>) =>
  type instanceof t.InterfaceType || type instanceof t.PartialType || type instanceof t.ExactType

/** Keys of object fields only: intersections and unions add positional keys that mean nothing to a caller. */
const fieldPath = (context: t.Context): string =>
  context
    .slice(1)
    .filter((_entry, i) => hasNamedFields(context[i]!.type))
    .map((entry) => entry.key)
    .join('.')

/** Turns the first io-ts error into one clear, field-naming failure. */
export const toMalformedRequest = (errors: t.Errors, requirementsField = 'paymentRequirements'): MalformedRequest => {
  const first = errors[0]
  if (first === undefined) {
    return { _tag: 'MalformedRequest', reasonCode: 'invalid_payload', field: 'body', message: 'body: malformed' }
  }
  const field = fieldPath(first.context) || 'body'
  const expected = first.context[first.context.length - 1]?.type.name ?? 'a valid value'
  const what = first.message ?? (first.value === undefined ? 'is required' : `expected ${expected}`)
  return {
    _tag: 'MalformedRequest',
    reasonCode:
      field === requirementsField || field.startsWith(`${requirementsField}.`)
        ? 'invalid_payment_requirements'
        : 'invalid_payload',
    field,
    message: `${field}: ${what}`,
  }
}
