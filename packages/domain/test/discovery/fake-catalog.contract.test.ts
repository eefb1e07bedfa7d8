import { discoveryCatalogContract } from './catalog-contract.js'
import { makeFakeCatalog } from './fake-catalog.js'

discoveryCatalogContract('in memory', async () => ({ catalog: makeFakeCatalog(), close: async () => {} }))
