// Fixture for the layer check: outside its store module, the app must not know which store it runs on.
import knex from 'knex'
import { makePostgresStore } from '../../adapters-persistence/src/index.js'
export const store = [knex, makePostgresStore]
