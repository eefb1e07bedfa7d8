// Fixture for the layer check: only the composition root uses inversify.
import { Container } from 'inversify'
export const container = new Container()
