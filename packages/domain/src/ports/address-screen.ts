import type { Address } from '../model/payment.js'

/**
 * The operator's deny list (docs/ARCHITECTURE.md §3 rule S1): asked at every verify and settle, in memory. Where it
 * comes from (a file, reloaded) is the app's business; the domain only asks.
 */
export interface AddressScreen {
  /** `address` is canonical (lower case), as decoded. */
  readonly isDenied: (address: Address) => boolean
}

/** No deny list configured: nobody is denied. */
export const NOBODY_DENIED: AddressScreen = { isDenied: () => false }
