import { Container } from 'inversify'
import { chainModule } from './modules/chain/chain-module.js'
import { httpModule } from './modules/http-module.js'
import { infrastructureModule, type StartedBeforeContainer } from './modules/infrastructure-module.js'
import { observabilityModule } from './modules/observability-module.js'
import { policyModule } from './modules/policy-module.js'
import { storeModule } from './modules/store-module.js'
import { useCasesModule } from './modules/use-cases-module.js'

/**
 * The facilitator's parts, one module per side: a team swapping the chain or the store replaces one module. Each
 * binding is made once, when first asked for; those that wait for the node (the policy and what needs it) are asked
 * for with `getAsync`.
 */
export const buildContainer = (started: StartedBeforeContainer): Container => {
  const container = new Container({ defaultScope: 'Singleton' })
  const modules = [observabilityModule, chainModule, storeModule, policyModule, useCasesModule, httpModule]
  container.load(infrastructureModule(started), ...modules)
  return container
}
