import { ensure, type Rule } from './rule.js'

/** Rule 3: the requirements ask for the configured token. */
export const assetIsConfigured: Rule = ({ request, policy }) =>
  ensure(request.requirements.asset === policy.asset.address, () => ({
    _tag: 'WrongAsset',
    asset: request.requirements.asset,
    expected: policy.asset.address,
  }))
