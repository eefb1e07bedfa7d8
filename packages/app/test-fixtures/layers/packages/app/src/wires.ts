// Fixture for the layer check: the composition root may use inversify and every adapter.
import { Container } from 'inversify'
import { chain } from '../../adapters-chain/src/index.js'
export const wired = [new Container(), chain]
