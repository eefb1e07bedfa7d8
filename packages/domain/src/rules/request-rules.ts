import { allOf } from './rule.js'
import { versionIsSupported } from './version-is-supported.js'
import { schemeIsExact } from './scheme-is-exact.js'
import { networkIsOurs } from './network-is-ours.js'
import { assetIsConfigured } from './asset-is-configured.js'
import { payToIsNotZero } from './pay-to-is-not-zero.js'
import { recipientMatches } from './recipient-matches.js'
import { valueIsNotZero } from './value-is-not-zero.js'
import { amountMeetsMinimum } from './amount-meets-minimum.js'
import { valueCoversAmount } from './value-covers-amount.js'
import { withinTimeWindow } from './within-time-window.js'

/** Rules 1–6 of docs/ARCHITECTURE.md §3: pure functions of the request, the policy and the clock. */
export const requestRules = allOf([
  versionIsSupported,
  schemeIsExact,
  networkIsOurs,
  assetIsConfigured,
  payToIsNotZero,
  recipientMatches,
  valueIsNotZero,
  amountMeetsMinimum,
  valueCoversAmount,
  withinTimeWindow,
])
