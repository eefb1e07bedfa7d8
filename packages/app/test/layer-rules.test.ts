import { expect } from 'chai'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { cruise, type ICruiseResult } from 'dependency-cruiser'

const require = createRequire(import.meta.url)
const config = require('../../../../.dependency-cruiser.cjs') as {
  forbidden: unknown[]
  options: Record<string, unknown>
}
const fixtures = fileURLToPath(new URL('../../test-fixtures/layers', import.meta.url))

/** Runs the project's own rule set over fixture files that break (and keep) the layer rules. */
const violationsIn = async (files: string[]) => {
  const { tsConfig: _project, ...options } = config.options
  const result = await cruise(files, {
    ...options,
    baseDir: fixtures,
    validate: true,
    ruleSet: { forbidden: config.forbidden },
  } as never)
  return (result.output as ICruiseResult).summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)
}

describe('layer rules (.dependency-cruiser.cjs)', () => {
  it('fail when the domain imports viem', async () => {
    const found = await violationsIn(['packages/domain/src/uses-viem.ts'])
    expect(found).to.have.length(1)
    expect(found[0]).to.match(/^domain-is-pure: packages\/domain\/src\/uses-viem\.ts → .*viem/)
  })
  it('let the domain import fp-ts and io-ts', async () => {
    expect(await violationsIn(['packages/domain/src/pure.ts'])).to.deep.equal([])
  })
  it("fail when the domain's core imports a payment mechanism; let the mechanism import the core", async () => {
    expect(await violationsIn(['packages/domain/src/uses-mechanism.ts'])).to.deep.equal([
      'core-never-imports-a-mechanism: packages/domain/src/uses-mechanism.ts → packages/domain/src/evm/mechanism.ts',
    ])
    expect(await violationsIn(['packages/domain/src/evm/mechanism.ts'])).to.deep.equal([])
  })
  it('fail when one chain family imports another; let the list of families import each', async () => {
    expect(await violationsIn(['packages/domain/src/svm/uses-evm.ts'])).to.deep.equal([
      'mechanisms-are-independent: packages/domain/src/svm/uses-evm.ts → packages/domain/src/evm/mechanism.ts',
    ])
    expect(await violationsIn(['packages/domain/src/chain-families.ts'])).to.deep.equal([])
  })
  it('fail when an adapter imports another adapter', async () => {
    expect(await violationsIn(['packages/adapters-http/src/uses-chain.ts'])).to.deep.equal([
      'adapters-are-independent: packages/adapters-http/src/uses-chain.ts → packages/adapters-chain/src/index.ts',
    ])
  })
  it('fail when a file of the app outside its chain module imports viem', async () => {
    const found = await violationsIn(['packages/app/src/uses-viem.ts', 'packages/app/src/modules/chain/chain-side.ts'])
    expect(found).to.have.length(1)
    expect(found[0]).to.match(/^one-chain-module: packages\/app\/src\/uses-viem\.ts → .*viem/)
  })
  it('fail when the app outside its modules, or a module other than the chain module, imports the chain adapter', async () => {
    const adapter = 'packages/adapters-chain/src/index.ts'
    expect(await violationsIn(['packages/app/src/uses-chain-adapter.ts'])).to.have.members([
      `app-composes-adapters-in-modules: packages/app/src/uses-chain-adapter.ts → ${adapter}`,
      `one-chain-module: packages/app/src/uses-chain-adapter.ts → ${adapter}`,
    ])
    expect(await violationsIn(['packages/app/src/modules/uses-chain-adapter.ts'])).to.deep.equal([
      `one-chain-module: packages/app/src/modules/uses-chain-adapter.ts → ${adapter}`,
    ])
  })
  it('let standalone programs (tools/) call the chain adapter', async () => {
    expect(await violationsIn(['packages/app/src/tools/demo.ts'])).to.deep.equal([])
  })
  it('fail when anything but the app imports inversify', async () => {
    const found = await violationsIn(['packages/adapters-http/src/uses-inversify.ts'])
    expect(found).to.have.length(1)
    expect(found[0]).to.match(/^only-app-uses-inversify: /)
  })
  it('fail when the app outside its store module imports the store adapter or knex', async () => {
    const found = await violationsIn(['packages/app/src/uses-knex.ts'])
    expect(found).to.have.length(3)
    const store = 'packages/adapters-persistence/src/index.ts'
    expect(found).to.include(`one-store-module: packages/app/src/uses-knex.ts → ${store}`)
    expect(found).to.include(`app-composes-adapters-in-modules: packages/app/src/uses-knex.ts → ${store}`)
    const toKnex = /^one-store-module: packages\/app\/src\/uses-knex\.ts → .*node_modules\/knex\//
    expect(found.filter((v) => toKnex.test(v))).to.have.length(1)
    expect(await violationsIn(['packages/app/src/modules/persistence-module.ts'])).to.deep.equal([])
  })
  it('let the composition root import inversify', async () => {
    expect(await violationsIn(['packages/app/src/wires.ts'])).to.deep.equal([])
  })
})
