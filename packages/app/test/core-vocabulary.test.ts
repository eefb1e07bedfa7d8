import { expect } from 'chai'
import { ESLint } from 'eslint'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../../../../', import.meta.url))
const eslint = new ESLint({ cwd: root })

/** The messages the project's ESLint config gives `code` as if it were the file at `path`. */
const messagesFor = async (path: string, code: string) => {
  const [result] = await eslint.lintText(code, { filePath: `${root}${path}` })
  return result!.messages.map((m) => m.message)
}

const EVM_WORD = /An EVM word in the domain's core/

describe("the domain's core vocabulary (eslint.config.js)", () => {
  it('refuses an EVM field, string or 0x-template type in a core file', async () => {
    const core = 'packages/domain/src/use-cases/new-use-case.ts'
    expect(await messagesFor(core, 'export interface Row {\n  readonly validBefore: bigint\n}\n')).to.satisfy(
      (messages: string[]) => messages.some((m) => EVM_WORD.test(m)),
    )
    expect(await messagesFor(core, "export const method = 'permit2'\n")).to.satisfy((messages: string[]) =>
      messages.some((m) => EVM_WORD.test(m)),
    )
    expect(await messagesFor(core, 'export type Hash = `0x${string}`\n')).to.satisfy((messages: string[]) =>
      messages.some((m) => EVM_WORD.test(m)),
    )
  })
  it('lets the EVM mechanism name them, and the core speak of payments', async () => {
    const mechanism = 'packages/domain/src/evm/new-rule.ts'
    expect(await messagesFor(mechanism, 'export interface Row {\n  readonly validBefore: bigint\n}\n')).to.deep.equal(
      [],
    )
    const core = 'packages/domain/src/use-cases/new-use-case.ts'
    expect(await messagesFor(core, 'export interface Row {\n  readonly payer: string\n}\n')).to.deep.equal([])
  })
})
