import * as E from 'fp-ts/lib/Either.js'
import { constVoid, pipe } from 'fp-ts/lib/function.js'
import * as RA from 'fp-ts/lib/ReadonlyArray.js'
import type { ResourceDeclaration } from './resource-declaration.js'

/** Bounds of what one declaration may put in the public catalog (docs/API.md, Bazaar discovery). */
export const DECLARATION_LIMITS = {
  resourceChars: 2048,
  descriptionChars: 1000,
  mimeTypeChars: 100,
  operationChars: 128,
  /** The declared extensions (`info` and `schema`) and the requirements, each as JSON. */
  extensionsBytes: 16 * 1024,
  acceptsBytes: 4 * 1024,
} as const

const HTTP_METHODS = ['GET', 'HEAD', 'DELETE', 'POST', 'PUT', 'PATCH']
// Control characters (C0 but tab and newline, DEL, C1) and markup: the catalog is shown by others as text.
const isControl = (code: number) => (code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f)
const hasControl = (value: string) => [...value].some((char) => isControl(char.codePointAt(0)!))
const MARKUP = /[<>]/

type DeclarationRule = (declaration: ResourceDeclaration) => E.Either<string, void>

const ensure = (ok: boolean, reason: () => string): E.Either<string, void> =>
  ok ? E.right(undefined) : E.left(reason())

const utf8 = new TextEncoder()
/** A payer's value quoted in a reason: at most 16 characters of it. */
const quoted = (value: string) => (value.length > 16 ? `${value.slice(0, 16)}…` : value)
const jsonBytes = (value: unknown) => utf8.encode(JSON.stringify(value)).length

const plainText = (field: string, value: string | undefined, maxChars: number): E.Either<string, void> =>
  value === undefined
    ? E.right(undefined)
    : pipe(
        ensure(value.length <= maxChars, () => `${field}: at most ${maxChars} characters (got ${value.length})`),
        E.chain(() => ensure(!hasControl(value), () => `${field}: control characters are not catalogued`)),
        E.chain(() =>
          ensure(!MARKUP.test(value), () => `${field}: markup (< or >) is not catalogued; describe it in plain text`),
        ),
      )

const resourceIsAnHttpUrl: DeclarationRule = ({ resource }) => {
  if (resource.length > DECLARATION_LIMITS.resourceChars)
    return E.left(`resource: at most ${DECLARATION_LIMITS.resourceChars} characters`)
  // The dialect built it from a URL; what is left is its shape: an absolute http(s) URL without credentials.
  const match = /^https?:\/\/([^/?#]*)/.exec(resource)
  return ensure(
    match !== null && !match[1]!.includes('@') && !hasControl(resource),
    () => 'resource: an absolute http or https URL without credentials',
  )
}

const operationIsKnown: DeclarationRule = ({ type, operation }) =>
  type === 'http'
    ? ensure(
        HTTP_METHODS.includes(operation),
        () => `method: one of ${HTTP_METHODS.join(', ')} (got ${quoted(operation)})`,
      )
    : type === 'mcp'
      ? plainText('tool', operation, DECLARATION_LIMITS.operationChars)
      : E.left(`type: http or mcp (got ${quoted(type)})`)

const describedInPlainText: DeclarationRule = ({ description, mimeType, serviceName, tags = [] }) =>
  pipe(
    plainText('description', description, DECLARATION_LIMITS.descriptionChars),
    E.chain(() => plainText('mimeType', mimeType, DECLARATION_LIMITS.mimeTypeChars)),
    E.chain(() => plainText('serviceName', serviceName, DECLARATION_LIMITS.mimeTypeChars)),
    E.chain(() =>
      pipe(
        tags,
        RA.traverse(E.Applicative)((tag) => plainText('tags', tag, DECLARATION_LIMITS.mimeTypeChars)),
        E.map(constVoid),
      ),
    ),
  )

const withinSize: DeclarationRule = ({ extensions, accepts }) =>
  pipe(
    ensure(
      jsonBytes(extensions) <= DECLARATION_LIMITS.extensionsBytes,
      () => `extensions.bazaar: at most ${DECLARATION_LIMITS.extensionsBytes} bytes of JSON`,
    ),
    E.chain(() =>
      ensure(
        jsonBytes(accepts) <= DECLARATION_LIMITS.acceptsBytes,
        () => `paymentRequirements: at most ${DECLARATION_LIMITS.acceptsBytes} bytes of JSON to be catalogued`,
      ),
    ),
  )

/** Every rule a declaration meets before it is catalogued, first failure wins: its reason. */
export const declarationRules: DeclarationRule = (declaration) =>
  pipe(
    [resourceIsAnHttpUrl, operationIsKnown, describedInPlainText, withinSize],
    RA.traverse(E.Applicative)((rule) => rule(declaration)),
    E.map(constVoid),
  )
