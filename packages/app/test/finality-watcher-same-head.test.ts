import {
  ConfirmedRows,
  FinalityWatcher,
  notingConfirmations,
  type EvmAddress as Address,
  type ChainBlocks,
  type FacilitatorPolicy,
  type Hex,
  type SettlementJournal,
} from '@x402-facilitator/domain'
import { BLOCK_42, FAKE_TOKEN } from '@x402-facilitator/domain/fake-chain'
import { FakeJournal } from '@x402-facilitator/domain/fake-journal'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pino } from 'pino'

const FACILITATOR: Address = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const PAYER: Address = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const TX: Hex = `0x${'ab'.repeat(32)}`
/** A chain that mines only on demand (anvil's automine): its head stays at the settle's block. */
const HEAD = 42n

/** One row claimed, submitted, and confirmed at `HEAD` through `journal`; its id. */
const confirmRow = async (journal: SettlementJournal): Promise<string> => {
  const claimed = await journal.claim({
    network: 'eip155:31337',
    asset: FAKE_TOKEN,
    payer: PAYER,
    nonce: `0x${'01'.repeat(32)}`,
    payee: FACILITATOR,
    value: 1n,
    validAfter: 0n,
    validBefore: 2n ** 40n,
    signature: `0x${'11'.repeat(64)}1b`,
    requirements: {},
    owner: FACILITATOR,
  })()
  if (claimed._tag !== 'Right' || claimed.right._tag !== 'Claimed') throw new Error('not claimed')
  const { id, generation } = claimed.right.settlement
  const ref = { id, generation }
  const attempt = { txHash: TX, raw: '0x00' as Hex, accountNonce: 0n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }
  await journal.markSubmitted(ref, { ...attempt, sentAt: new Date() })()
  await journal.markMined(ref, { txHash: TX, blockNumber: HEAD, blockHash: BLOCK_42, gasUsed: 1n, succeeded: true })()
  return id
}

describe('the finality watcher at a head it already checked', () => {
  const setUp = () => {
    const store = new FakeJournal(() => new Date())
    const confirmedRows = new ConfirmedRows()
    const journal = notingConfirmations(store, confirmedRows)
    const hashReads: Array<ReadonlyArray<bigint>> = []
    // What the chain holds at HEAD: a test may replace it with a new chain of the same height.
    const chain = { hashAtHead: BLOCK_42 }
    const blocks: ChainBlocks = {
      head: TE.right(HEAD),
      latest: () => Promise.resolve(E.right({ height: HEAD, hash: chain.hashAtHead })),
      hashesAt: (heights) => {
        hashReads.push(heights)
        return TE.right(new Map(heights.map((height) => [height, chain.hashAtHead])))
      },
    }
    const watcher = new FinalityWatcher({
      lanes: [
        {
          policy: { facilitator: FACILITATOR } as FacilitatorPolicy,
          // Its transaction is on no chain after a reorg here.
          submitter: { receiptOf: () => TE.right(O.none) },
          finish: async () => [],
          mayAct: () => true,
        },
      ],
      journal,
      ends: { usedBy: () => TE.left({ _tag: 'ChainUnavailable', reason: 'not asked here' }) },
      blocks,
      finality: { confirmations: 0, violationWatchDepth: 16, maxBlocks: 500 },
      headPollMs: 50,
      logger: pino({ level: 'silent' }),
      violations: { inc: () => undefined },
      liveness: { isAlive: () => TE.right(true) },
      confirmedRows,
    })
    return { store, journal, watcher, hashReads, chain }
  }

  it('checks it again once a row was confirmed since, and marks that row final without another block', async () => {
    const { store, journal, watcher, hashReads } = setUp()
    await watcher.checkOnce()
    expect(hashReads).to.deep.equal([])
    const id = await confirmRow(journal)
    await watcher.checkOnce()
    expect([...store.rows.values()].find((row) => row.id === id)?.state).to.equal('final')
    expect(hashReads).to.deep.equal([[HEAD]])
  })

  it('with no row confirmed since its check, reads nothing more at that head', async () => {
    const { journal, watcher, hashReads } = setUp()
    await confirmRow(journal)
    await watcher.checkOnce()
    await watcher.checkOnce()
    await watcher.checkOnce()
    expect(hashReads).to.deep.equal([[HEAD]])
  })

  it('a new chain of the same height (another block at that head): checked again, its replaced row sent back', async () => {
    const { store, journal, watcher, hashReads, chain } = setUp()
    const id = await confirmRow(journal)
    await watcher.checkOnce()
    expect([...store.rows.values()].find((row) => row.id === id)?.state).to.equal('final')
    chain.hashAtHead = `0x${'77'.repeat(32)}`
    await watcher.checkOnce()
    expect(hashReads).to.deep.equal([[HEAD], [HEAD]])
    expect([...store.rows.values()].find((row) => row.id === id)?.state).to.equal('submitted')
  })
})
