import { expect } from 'chai'
import { signedGasLimit } from '@x402-facilitator/adapters-chain'
import {
  chainUnavailable,
  evmSigningKeys,
  makeInMemoryPayerExposure,
  makePenaltyBox,
  NOBODY_DENIED,
  type Authorization,
  type Hex,
  type NewSettlement,
  type PaymentRequest,
  type PreparedTransfer,
  type SettlementJournal,
  type TransferSubmitter,
  Lane,
  type LanePorts,
  ReplicaLockGate,
  type SignatureVerifier,
  type TokenReader,
} from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pino } from 'pino'
import { serializeTransaction } from 'viem'

/**
 * REVIEW-1 finding 8, docs/ARCHITECTURE.md §5.8: only a settle its own key refused is given to another lane, not one
 * that failed otherwise while a concurrent settle tripped the key. Ports in memory: the journal knows only claims
 * and releases, the node only the key's balance (none).
 */
const ACCOUNT = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
const NOW = new Date('2026-11-22T12:00:00Z')
const nonce = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`
const request = (n: number): PaymentRequest => ({
  payload: {
    x402Version: 2,
    scheme: 'exact',
    network: 'eip155:31337',
    signature: `0x${'11'.repeat(64)}1b`,
    authorization: {
      from: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
      to: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
      value: 1n,
      validAfter: BigInt(NOW.getTime() / 1000) - 60n,
      validBefore: BigInt(NOW.getTime() / 1000) + 600n,
      nonce: nonce(n),
    },
  },
  requirements: {
    x402Version: 2,
    scheme: 'exact',
    network: 'eip155:31337',
    amount: 1n,
    asset: TOKEN,
    payTo: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
    maxTimeoutSeconds: 60,
  },
})

const journal = (): SettlementJournal => {
  let id = 0
  const claim = (s: NewSettlement) =>
    TE.right({
      _tag: 'Claimed' as const,
      settlement: { ...s, id: String(++id), generation: 1, state: 'claimed' as const, attempts: [], createdAt: NOW },
    })
  const known = { claim, markReleased: () => TE.right('applied' as const), findByKey: () => TE.right(O.none) }
  return new Proxy(known, {
    get: (target, name) =>
      (target as Record<string | symbol, unknown>)[name] ??
      (() => TE.left({ _tag: 'JournalUnavailable', reason: `${String(name)}: not in this test` })),
  }) as unknown as SettlementJournal
}

describe('a lane gives another lane only the settles its own key refused (docs/ARCHITECTURE.md §5.8)', () => {
  it('a settle failing otherwise while a concurrent one trips the key is answered as it failed, not retried elsewhere', async () => {
    let keyTripped = () => {}
    const tripped = new Promise<void>((resolve) => (keyTripped = resolve))
    const raw = serializeTransaction({
      chainId: 31337,
      type: 'eip1559',
      gas: 100_000n,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
      nonce: 0,
      to: TOKEN,
    })
    const prepared = (n: bigint): PreparedTransfer => ({
      txHash: `0x${n.toString(16).padStart(64, 'e')}`,
      raw,
      accountNonce: n,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
    })
    const submitter = {
      prepare: (authorization: Authorization) => async () => {
        if (authorization.nonce === nonce(1)) return E.right(prepared(1n))
        // The node goes away for this one, after the other settle's key was refused.
        await tripped
        return E.left(chainUnavailable('connection refused'))
      },
      discard: () => async () => keyTripped(),
      abandon: () => async () => undefined,
    } as unknown as TransferSubmitter
    const keyReads = {
      gasBalance: async () => 0n,
      gasPrice: async () => 1n,
      settlerAllows: async () => true,
      signedGasLimit,
    }
    const clock = { now: () => NOW, sleep: () => async () => undefined, monotonicMs: () => 0, after: () => () => {} }
    const shared: LanePorts = {
      policy: {
        network: 'eip155:31337',
        asset: { address: TOKEN, symbol: 'USDC', decimals: 6 },
        facilitator: ACCOUNT,
        validityMarginSeconds: 6n,
        receiptTimeoutMs: 30_000,
      },
      clock,
      exposure: makeInMemoryPayerExposure(),
      journal: journal(),
      screen: NOBODY_DENIED,
      liveness: { isAlive: () => TE.right(false) },
      recovery: {
        minAgeMs: 10_000,
        claimTimeoutMs: 30_000,
        replaceAfterMs: 15_000,
        batchSize: 100,
        unsettleableAfterMs: 600_000,
        unsettleableAfterTries: 3,
        refusalBackoffMs: 1_000,
      },
      penalties: makePenaltyBox(clock, { penaltyMs: 1, lostGasBudget: 1n }),
      logger: pino({ level: 'silent' }),
    }
    const evm = {
      signatures: {
        checkAuthorization: () => TE.right({ _tag: 'SignatureValid', byKey: true }),
      } as unknown as SignatureVerifier,
      token: {
        trialPayment: () =>
          TE.right({ balance: 10n, authorizationUsed: false, transfer: { _tag: 'WouldSucceed', gasUsed: 60_000n } }),
      } as unknown as TokenReader,
      keyReads,
      settler: undefined,
      itemGasLimit: undefined,
    }
    const [key] = evmSigningKeys(evm, [{ account: ACCOUNT, submitter }])
    const lane = new Lane(key!, new ReplicaLockGate(pino({ level: 'silent' })), shared)
    const options = (n: number) => ({ requirementsRecord: {}, answerId: `answer-${n}` })

    const [other, refused] = await Promise.all([
      lane.settle(request(2), options(2)),
      lane.settle(request(1), options(1)),
    ])

    expect(refused.keyRefused).to.equal(true)
    expect(E.isLeft(refused.result) && refused.result.left.reason).to.match(/holds 0 wei/)
    expect(E.isLeft(other.result) && other.result.left.reason).to.equal('connection refused')
    expect(other.keyRefused).to.equal(false)
  })
})
