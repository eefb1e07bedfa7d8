// Fixture for the layer check: the app's store module alone calls the store adapter's factory.
import { makePostgresStore } from '../../../adapters-persistence/src/index.js'
export const openPostgresStore = makePostgresStore
