import { expect } from 'chai'
import { declarationOfV1, declarationOfV2, type DeclarationReading } from '../src/discovery/declared-resource.js'
import { v2Body } from './support/bodies.js'
import { v1BodyDeclaring, v2BodyDeclaring, weatherExtension } from './support/bazaar-bodies.js'

const declared = (reading: DeclarationReading) => {
  if (reading._tag !== 'Declared') throw new Error(`not declared: ${JSON.stringify(reading)}`)
  return reading.declaration
}
const reason = (reading: DeclarationReading) => {
  if (reading._tag !== 'Unreadable') throw new Error(`readable: ${reading._tag}`)
  return reading.reason
}

describe("what a settle body declares for discovery (x402's bazaar extension, read by @x402/extensions)", () => {
  it('v2: the canonical URL (no query), the method, its description and the sanitized service metadata', () => {
    const body = v2BodyDeclaring()
    const declaration = declared(declarationOfV2(body))
    expect(declaration).to.deep.include({
      resource: 'https://shop.example/weather',
      type: 'http',
      operation: 'GET',
      x402Version: 2,
      description: 'Weather by city',
      mimeType: 'application/json',
      serviceName: 'Shop Weather',
      // Deduplicated; the loopback icon dropped.
      tags: ['weather', 'forecast'],
      accepts: body.paymentRequirements,
      extensions: { bazaar: body.paymentPayload.extensions.bazaar },
    })
    expect(declaration).to.not.have.property('iconUrl')
  })

  it('v2: a valid route template is the catalog key; one that climbs out of the path is not', () => {
    const templated = { ...weatherExtension(), routeTemplate: '/weather/:city' }
    expect(declared(declarationOfV2(v2BodyDeclaring(templated))).resource).to.equal(
      'https://shop.example/weather/:city',
    )
    const climbing = { ...weatherExtension(), routeTemplate: '/a/%2e%2e/admin' }
    expect(declared(declarationOfV2(v2BodyDeclaring(climbing))).resource).to.equal('https://shop.example/weather')
  })

  it('v2: nothing declared is none; info against its schema, the input, the URL and the depth are checked', () => {
    expect(declarationOfV2(v2Body())._tag).to.equal('None')
    const wrong = weatherExtension()
    wrong.info.input.queryParams = { city: 7 }
    expect(reason(declarationOfV2(v2BodyDeclaring(wrong)))).to.match(
      /^extensions\.bazaar\.info does not match its schema: \/input\/queryParams\/city: must be string/,
    )
    expect(reason(declarationOfV2(v2BodyDeclaring('yes')))).to.equal(
      'extensions.bazaar: an object with info and schema',
    )
    expect(reason(declarationOfV2(v2BodyDeclaring(weatherExtension(), { url: 'not a url' })))).to.equal(
      'paymentPayload.resource.url: the URL of the resource paid for',
    )
    let deep: Record<string, unknown> = {}
    const bazaar = weatherExtension()
    ;(bazaar.info as Record<string, unknown>).deep = deep
    for (let i = 0; i < 40; i++) deep = (deep.next = {}) as Record<string, unknown>
    expect(reason(declarationOfV2(v2BodyDeclaring(bazaar)))).to.equal('extensions.bazaar: nested deeper than 32 levels')
  })

  it("v2: a schema's regular expressions never run (a backtracking pattern costs nothing); the rest still checks", () => {
    const withPattern = (pattern: string, city: string) => {
      const bazaar = weatherExtension()
      const input = (bazaar.schema.properties as Record<string, Record<string, Record<string, unknown>>>).input!
      ;(input.properties!.queryParams as Record<string, unknown>).properties = { city: { type: 'string', pattern } }
      bazaar.info.input.queryParams = { city }
      return bazaar
    }
    // Were the pattern run, this match would backtrack for years (the test would time out).
    const declaration = declared(declarationOfV2(v2BodyDeclaring(withPattern('^(a+)+$', `${'a'.repeat(64)}!`))))
    // The declared schema is kept as declared.
    expect(JSON.stringify(declaration.extensions)).to.include('^(a+)+$')
    // A value the pattern refuses passes: patterns are not applied. The type still is.
    expect(declarationOfV2(v2BodyDeclaring(withPattern('^[0-9]+$', 'Paris')))._tag).to.equal('Declared')
    expect(reason(declarationOfV2(v2BodyDeclaring(withPattern('^[0-9]+$', 7 as unknown as string))))).to.match(
      /must be string/,
    )
  })

  it('v2: references and combinators are refused before any schema compiles (2^n paths, or the heap, otherwise)', () => {
    // $defs a0…a29, each anyOf two references to the next, the last unsatisfiable: compiled with allErrors, a schema
    // of under 2 KiB takes minutes and exhausts the heap (this test would time out, or the process die).
    const bazaar = weatherExtension()
    const defs: Record<string, unknown> = { a29: { not: {} } }
    for (let i = 0; i < 29; i++)
      defs[`a${i}`] = { anyOf: [{ $ref: `#/$defs/a${i + 1}` }, { $ref: `#/$defs/a${i + 1}` }] }
    const schema = bazaar.schema as Record<string, unknown>
    schema.$defs = defs
    schema.properties = { ...(schema.properties as object), output: { $ref: '#/$defs/a0' } }
    expect(reason(declarationOfV2(v2BodyDeclaring(bazaar)))).to.match(
      /^extensions\.bazaar\.schema[.a-z]*: the keyword \$(defs|ref) is not catalogued/,
    )
    const inner = weatherExtension()
    const input = (inner.schema.properties as Record<string, Record<string, Record<string, unknown>>>).input!
    ;(input.properties!.queryParams as Record<string, unknown>).anyOf = [{ type: 'object' }]
    expect(reason(declarationOfV2(v2BodyDeclaring(inner)))).to.equal(
      'extensions.bazaar.schema.properties.input.properties.queryParams: the keyword anyOf is not catalogued ' +
        '(properties, items, bounds and enums are; references and combinators could cost this service unbounded time)',
    )
  })

  it('v2: the declaration is bounded before it is compiled', () => {
    const big = weatherExtension()
    ;(big.info as Record<string, unknown>).padding = 'x'.repeat(20_000)
    expect(reason(declarationOfV2(v2BodyDeclaring(big)))).to.equal('extensions.bazaar: at most 16384 bytes of JSON')
  })

  it("v1: x402-express's outputSchema read onto v2's info; not discoverable, or none, is none", () => {
    const declaration = declared(declarationOfV1(v1BodyDeclaring()))
    expect(declaration).to.deep.include({
      resource: 'http://shop.test/weather',
      type: 'http',
      operation: 'GET',
      x402Version: 1,
      description: 'the weather',
      mimeType: 'application/json',
    })
    expect(declaration.accepts).to.not.have.property('outputSchema')
    expect(declaration.extensions).to.have.nested.property('bazaar.info.input.method', 'GET')
    expect(declarationOfV1(v1BodyDeclaring(false))._tag).to.equal('None')
    const { outputSchema: _none, ...requirements } = v1BodyDeclaring().paymentRequirements
    expect(declarationOfV1({ ...v1BodyDeclaring(), paymentRequirements: requirements })._tag).to.equal('None')
  })
})
