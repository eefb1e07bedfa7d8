import type { EvmAddress as Address } from '../model/evm-hex.js'
import type { PaymentRequest } from '../model/evm-payment.js'
import type { SigningKey } from '../../ports/signing-key.js'
import { evmMechanism } from '../evm-mechanism.js'
import type { KeyReads, Settler } from '../ports/settler.js'
import type { SignatureVerifier } from '../ports/signature-verifier.js'
import type { TokenReader } from '../ports/token-reader.js'
import type { TransferSubmitter } from '../ports/transfer-submitter.js'
import { evmHex } from '../model/evm-row.js'
import { KeyFunds } from './key-funds.js'
import { guardKey } from './key-guard.js'
import { lockGuarded } from './lock-guarded-submitter.js'

/** What every EVM lane of a route shares beside the core's ports. */
export interface EvmLaneDeps {
  readonly signatures: SignatureVerifier
  readonly token: TokenReader
  readonly settler: Settler | undefined
  /** Reads each key's balance and, after a batch reverted whole, whether the settler still allows it. */
  readonly keyReads: KeyReads
  /** The settler's `itemGasLimit`, when there is one. */
  readonly itemGasLimit: bigint | undefined
}

/**
 * A route's EVM signing keys (docs/ARCHITECTURE.md §5.8), each opened as a lane: its submitter guarded by its funds
 * (key-guard.ts) and its replica lock (lock-guarded-submitter.ts), the EVM mechanism over it.
 */
export const evmSigningKeys = (
  evm: EvmLaneDeps,
  submitters: ReadonlyArray<{ readonly account: Address; readonly submitter: TransferSubmitter }>,
): ReadonlyArray<SigningKey<PaymentRequest>> =>
  submitters.map(({ account, submitter }) => ({
    account,
    open: ({ ports, lock, events }) => {
      const { settler, keyReads, itemGasLimit, signatures, token } = evm
      const fees = new KeyFunds(keyReads, account)
      const notSettler = () =>
        ports.logger.error(
          { facilitator: account, settler: settler?.address },
          `the batch settler no longer lets ${account} settle (isSettler false): its payments go alone; call setSettler(${account}, true) on it from its owner`,
        )
      const guarded = lockGuarded(
        lock,
        guardKey(submitter, account, fees, keyReads, settler, { ...events, notSettler }),
      )
      const mechanism = evmMechanism({
        ...ports,
        ...(itemGasLimit === undefined ? {} : { itemGasLimit }),
        signatures,
        token,
        settler,
        submitter: guarded,
      })
      // The core hands back hashes this key's submitter gave it.
      const receipts = { receiptOf: (hashes: ReadonlyArray<string>) => guarded.receiptOf(hashes.map(evmHex)) }
      return { mechanism, fees, receipts }
    },
  }))
