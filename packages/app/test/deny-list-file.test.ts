import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'chai'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import pino from 'pino'
import { Registry } from 'prom-client'
import { DenyListFile } from '../src/screening/deny-list-file.js'
import { parseDenyList } from '../src/screening/parse-deny-list.js'

const A = `0x${'aa'.repeat(20)}` as Address
const B = `0x${'bb'.repeat(20)}` as Address
const MIXED = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01'

const listFile = async (text: string): Promise<string> => {
  const file = join(await mkdtemp(join(tmpdir(), 'deny-list-')), 'deny')
  await writeFile(file, text)
  return file
}

/** A deny list over `file`, its log lines and its metrics. */
const open = async (file: string) => {
  const lines: Array<{ level: number; msg: string }> = []
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) })
  const registry = new Registry()
  const list = await DenyListFile.open(file, logger, registry)
  const metric = async (name: string) => (await registry.getSingleMetric(name)!.get()).values[0]?.value
  const errors = () => lines.filter((l) => l.level >= 50).map((l) => l.msg)
  return { list, metric, errors }
}

describe('DENY_LIST_FILE: parsing (docs/OPERATIONS.md "Screening")', () => {
  it('one address a line, any case (kept lower case), # comments whole or trailing, blank lines skipped', () => {
    const parsed = parseDenyList(`# sanctioned\n${A}\n\n  ${MIXED}   # reported 2026-11-01\n${A}\n`)
    expect(E.isRight(parsed) && [...parsed.right]).to.deep.equal([A, MIXED.toLowerCase()])
  })

  it('comments only: a valid list of nobody (the way to clear it on purpose)', () => {
    const parsed = parseDenyList('# nobody denied now\n')
    expect(E.isRight(parsed) && parsed.right.size).to.equal(0)
  })

  it('an empty or blank file is refused, never read as nobody denied', () => {
    for (const text of ['', '\n', '  \n\t\n'])
      expect(parseDenyList(text)).to.deep.equal(
        E.left({ line: 0, reason: 'the file is empty (to deny nobody on purpose, keep a "#" comment line in it)' }),
      )
  })

  it('a bad line is refused naming its number and text', () => {
    expect(parseDenyList(`${A}\n# fine\n0x1234 # short\n`)).to.deep.equal(
      E.left({ line: 3, reason: '"0x1234" is not an address (0x and 40 hex digits)' }),
    )
    expect(parseDenyList(`${A} ${B}\n`)).to.have.nested.property('left.line', 1)
  })

  it('at start, a bad or missing file refuses the start naming line and reason', async () => {
    const bad = await listFile(`${A}\nnot-an-address\n`)
    const refused = await open(bad).then(
      () => expect.fail('opened'),
      (e: Error) => e.message,
    )
    expect(refused).to.equal(
      `configuration: DENY_LIST_FILE ${bad} line 2: "not-an-address" is not an address (0x and 40 hex digits)`,
    )
    const missing = await open(join(tmpdir(), 'no-such-deny-list')).then(
      () => expect.fail('opened'),
      (e: Error) => e.message,
    )
    expect(missing).to.match(/DENY_LIST_FILE .*no-such-deny-list cannot be read \(ENOENT\)/)
  })
})

describe('DENY_LIST_FILE: reloads keep the last good list and alert (docs/OPERATIONS.md "Screening")', () => {
  it('an edit takes effect on reload; the same text again is unchanged', async () => {
    const file = await listFile(`${A}\n`)
    const { list, metric } = await open(file)
    expect([list.isDenied(A), list.isDenied(B)]).to.deep.equal([true, false])
    await writeFile(file, `${B}\n`)
    expect(await list.reload()).to.deep.equal({ _tag: 'loaded', addresses: 1 })
    expect([list.isDenied(A), list.isDenied(B)]).to.deep.equal([false, true])
    expect(await list.reload()).to.deep.equal({ _tag: 'unchanged' })
    expect(await metric('facilitator_deny_list_addresses')).to.equal(1)
  })

  it('a bad line, an empty file, a missing file: the last good list kept, an error logged, the alert raised', async () => {
    const file = await listFile(`${A}\n`)
    const { list, metric, errors } = await open(file)
    const kept = async (expected: RegExp) => {
      const result = await list.reload()
      expect(result._tag === 'kept' && result.error).to.match(expected)
      expect(list.isDenied(A)).to.equal(true)
      expect(await metric('facilitator_deny_list_reload_failing')).to.equal(1)
    }
    await writeFile(file, `${A}\n0xnope\n`)
    await kept(/line 2: "0xnope" is not an address/)
    await writeFile(file, '')
    await kept(/the file is empty/)
    await rm(file)
    await kept(/cannot be read \(ENOENT\)/)
    expect(await metric('facilitator_deny_list_reload_failures_total')).to.equal(3)
    expect(errors()).to.have.length(3)
    expect(errors()[0]).to.equal(
      `deny list reload failed, the last good list (1 addresses) is kept: DENY_LIST_FILE ${file} line 2: ` +
        '"0xnope" is not an address (0x and 40 hex digits)',
    )
    // A broken file read again is not logged again; a good one clears the alert.
    await list.reload()
    expect(errors()).to.have.length(3)
    await writeFile(`${file}.tmp`, `${B}\n`)
    await rename(`${file}.tmp`, file) // an editor's atomic save
    expect(await list.reload()).to.deep.equal({ _tag: 'loaded', addresses: 1 })
    expect([list.isDenied(A), list.isDenied(B)]).to.deep.equal([false, true])
    expect(await metric('facilitator_deny_list_reload_failing')).to.equal(0)
  })

  it('a file emptied on purpose (comments only) clears the list', async () => {
    const file = await listFile(`${A}\n${B}\n`)
    const { list, metric } = await open(file)
    await writeFile(file, '# nobody denied since 2026-11-25\n')
    expect(await list.reload()).to.deep.equal({ _tag: 'loaded', addresses: 0 })
    expect([list.isDenied(A), list.isDenied(B)]).to.deep.equal([false, false])
    expect(await metric('facilitator_deny_list_addresses')).to.equal(0)
    expect(await metric('facilitator_deny_list_reload_failing')).to.equal(0)
  })
})
