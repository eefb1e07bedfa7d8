/** Layer rules of docs/ARCHITECTURE.md §1, checked inside `npm test`. */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'packages/domain imports nothing but fp-ts and io-ts (and itself).',
      severity: 'error',
      from: { path: '^packages/domain/src/' },
      to: { pathNot: ['^packages/domain/src/', 'node_modules/(fp-ts|io-ts)/'] },
    },
    {
      name: 'adapters-are-independent',
      comment: 'An adapter package never imports another adapter package.',
      severity: 'error',
      from: { path: '^packages/(adapters-[^/]+)/' },
      to: { path: '^packages/adapters-[^/]+/', pathNot: '^packages/$1/' },
    },
    {
      name: 'app-composes-adapters-in-modules',
      comment:
        'Of the app, only modules/ (which bind the ports adapters make) and tools/ (standalone programs: the demo, the ' +
        'settler deployment) import an adapter package: the rest sequences and configures.',
      severity: 'error',
      from: { path: '^packages/app/src/', pathNot: '^packages/app/src/(modules|tools)/' },
      to: { path: '^packages/adapters-[^/]+/' },
    },
    {
      name: 'one-chain-module',
      comment:
        'Of the app, only modules/chain/ imports the chain adapter or viem: swapping the chain client is replacing one ' +
        'module (§1).',
      severity: 'error',
      from: { path: '^packages/app/src/', pathNot: '^packages/app/src/(modules/chain|tools)/' },
      to: { path: ['^packages/adapters-chain/', 'node_modules/viem/'] },
    },
    {
      name: 'only-app-uses-inversify',
      comment: 'The composition root alone knows the DI container.',
      severity: 'error',
      from: { pathNot: '^packages/app/' },
      to: { path: 'node_modules/(inversify|@inversifyjs)/' },
    },
    {
      name: 'one-store-module',
      comment: 'Of the app, only modules/persistence-module.ts imports the store adapter, knex or pg (§1).',
      severity: 'error',
      from: { path: '^packages/app/src/', pathNot: '^packages/app/src/modules/persistence-module[.]ts$' },
      to: { path: ['^packages/adapters-persistence/', 'node_modules/(knex|pg)/'] },
    },
    {
      name: 'no-circular',
      comment: 'No import cycle: every file can be read after the files it imports.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'adapters-never-import-the-app',
      comment: 'The app composes the adapters; an adapter never reaches up into it.',
      severity: 'error',
      from: { path: '^packages/adapters-[^/]+/' },
      to: { path: '^packages/app/' },
    },
    {
      name: 'core-never-imports-a-mechanism',
      comment:
        "The domain's core never imports a payment mechanism (src/evm/, src/svm/): it asks a mechanism through its " +
        'ports (ports/payment-mechanism.ts, lane-mechanism.ts, signing-key.ts, request-reader.ts; docs/ARCHITECTURE.md ' +
        '§1). Only the index and chain-families.ts (where one answer covers every family) import them.',
      severity: 'error',
      from: {
        path: '^packages/domain/src/',
        pathNot: '^packages/domain/src/((evm|svm)/|index[.]ts$|chain-families[.]ts$)',
      },
      to: { path: '^packages/domain/src/(evm|svm)/' },
    },
    {
      name: 'mechanisms-are-independent',
      comment: 'One chain family never imports another: each speaks to the core only (docs/ARCHITECTURE.md §1).',
      severity: 'error',
      from: { path: '^packages/domain/src/(evm|svm)/' },
      to: { path: '^packages/domain/src/(evm|svm)/', pathNot: '^packages/domain/src/$1/' },
    },
    {
      name: 'domain-core-below-use-cases',
      comment: 'Model, codecs, rules and ports are what the use cases are made of: they never import a use case.',
      severity: 'error',
      from: { path: '^packages/domain/src/(model|codecs|rules|ports|penalties|exposure)/' },
      to: { path: '^packages/domain/src/use-cases/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['/dist/', 'test-fixtures/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
}
