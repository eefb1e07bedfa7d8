// Fixture for the layer check: the composition root may use inversify.
import { Container } from 'inversify'
export const wired = new Container()
