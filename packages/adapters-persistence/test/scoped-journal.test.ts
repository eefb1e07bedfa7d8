import type { Address, SettlementJournal } from '@x402-facilitator/domain'
import {
  attempt,
  claimed,
  facilitator,
  newPermit2Settlement,
  newSettlement,
  receipt,
  refOf,
  right,
  settlementJournalContract,
  SVM_SAMPLE_NETWORK,
  svmSettlement,
  uniqueAddress,
  uniqueHex,
} from '@x402-facilitator/domain/journal-contract'
import { expect } from 'chai'
import type pg from 'pg'
import { createPgPool } from '../src/database/create-pg-pool.js'
import { makePgJournals, type PgJournals } from '../src/journal/pg-settlement-journal.js'
import { createTestDatabase, type TestDatabase } from '../src/testing/test-database.js'

const sampleAsset = newSettlement().asset
const chainA = 'eip155:84532'
const chainB = 'eip155:11155111'
const tokenA2: Address = '0x00000000000000000000000000000000000000a2'

describe('scoped journals (one per chain and token) on one pool', () => {
  let db: TestDatabase
  let pool: pg.Pool
  let journals: PgJournals
  let statements = 0
  before(async () => {
    db = await createTestDatabase()
    pool = createPgPool({ connectionString: db.connectionString, timeoutMs: 10_000 })
    journals = makePgJournals(pool, { onStatement: () => statements++ })
  })
  after(async () => {
    await pool.end()
    await db.drop()
  })
  const truncate = () => db.knex.raw('truncate settlement_attempts, settlements')

  settlementJournalContract('the SettlementJournal contract, through a scoped journal', async () => {
    await truncate()
    return {
      journal: journals.journalFor({ chainId: chainA, asset: sampleAsset }),
      svmJournal: journals.journalFor({ chainId: SVM_SAMPLE_NETWORK, asset: svmSettlement().asset }),
      setUpdatedAt: async (id, at) => {
        await db.knex('settlements').where({ id }).update({ updated_at: at })
      },
    }
  })

  describe('what each scope sees', () => {
    const a = () => journals.journalFor({ chainId: chainA, asset: sampleAsset })
    const a2 = () => journals.journalFor({ chainId: chainA, asset: tokenA2 })
    const b = () => journals.journalFor({ chainId: chainB, asset: sampleAsset })
    const blockHash = uniqueHex(32)

    /** A row of `journal`'s scope, of the shared owner, mined successfully at block 500 (one hash on both chains). */
    const confirmedIn = async (journal: SettlementJournal, network: string, asset: Address, accountNonce: bigint) => {
      const row = claimed(await right(journal.claim(newSettlement({ network, asset }))))
      const sent = attempt({ accountNonce })
      await right(journal.markSubmitted(refOf(row), sent))
      await right(journal.markMined(refOf(row), receipt(sent.txHash, { blockNumber: 500n, blockHash })))
      return row
    }
    const submittedIn = async (journal: SettlementJournal, network: string, asset: Address, accountNonce: bigint) => {
      const row = claimed(await right(journal.claim(newSettlement({ network, asset }))))
      await right(journal.markSubmitted(refOf(row), attempt({ accountNonce })))
      return row
    }

    it("records each claim's chain; owner-keyed calls of one chain never see the other's rows", async () => {
      await truncate()
      const onA = await confirmedIn(a(), 'base-sepolia', sampleAsset, 1n)
      const onB = await confirmedIn(b(), 'sepolia', sampleAsset, 1n)
      const openA = await submittedIn(a(), 'base-sepolia', sampleAsset, 2n)
      const openB = await submittedIn(b(), 'sepolia', sampleAsset, 2n)
      expect(
        (await db.knex('settlements').select('id', 'chain_id').orderBy('id')).map(
          (r: { chain_id: string }) => r.chain_id,
        ),
      ).to.deep.equal([chainA, chainB, chainA, chainB])
      const block = { blockNumber: 500n, blockHash }

      expect(await right(b().blocksToWatch(facilitator, 0n, 10))).to.deep.equal([block])
      expect((await right(a().findInBlock(facilitator, block))).map((r) => r.id)).to.deep.equal([onA.id])
      expect(await right(a().ownersWithOpenRows())).to.deep.equal([{ owner: facilitator, rows: 2 }])
      const future = new Date(Date.now() + 3_600_000)
      expect((await right(a().findUnfinished(future, 10))).map((r) => r.id)).to.deep.equal([openA.id])
      expect((await right(b().findUnfinished(future, 10))).map((r) => r.id)).to.deep.equal([openB.id])
      // A's watcher finalises A's rows only, though B's row records the same height and hash.
      expect(await right(a().markFinal(facilitator, [block]))).to.deep.equal([onA.id])
      expect(await right(b().findInBlock(facilitator, block))).to.have.length(1)
      expect((await right(b().findInBlock(facilitator, block)))[0]).to.deep.include({ id: onB.id, state: 'confirmed' })
      // The other token of chain A sees none of the sample token's rows.
      expect(await right(a2().blocksToWatch(facilitator, 0n, 10))).to.deep.equal([])
      expect(await right(a2().findUnfinished(future, 10))).to.deep.equal([])
      expect(await right(a2().ownersWithOpenRows())).to.deep.equal([])
      // The unscoped journal sees every row, as the previous release did.
      expect((await right(journals.journal.findUnfinished(future, 10))).map((r) => r.id)).to.deep.equal([
        openA.id,
        openB.id,
      ])
    })

    it('endWatch of one chain leaves the watch of the other', async () => {
      await truncate()
      const owner = uniqueAddress()
      const rowOf = async (journal: SettlementJournal, network: string) => {
        const row = claimed(await right(journal.claim(newSettlement({ network, owner }))))
        const sent = attempt({ accountNonce: 4n })
        await right(journal.markSubmitted(refOf(row), sent))
        await right(
          journal.markMined(refOf(row), receipt(sent.txHash, { blockNumber: 700n, succeeded: false, blockHash })),
        )
        return row
      }
      await rowOf(a(), 'base-sepolia')
      const onB = await rowOf(b(), 'sepolia')
      expect(await right(a().endWatch(owner, 800n))).to.have.length(1)
      expect(await right(b().blocksToWatch(owner, 0n, 10))).to.deep.equal([{ blockNumber: 700n, blockHash }])
      expect(await right(b().endWatch(owner, 800n))).to.deep.equal([onB.id])
    })

    it("an account's nonces in flight: both tokens of its chain, not the other chain's", async () => {
      await truncate()
      await submittedIn(a(), 'base-sepolia', sampleAsset, 5n)
      await submittedIn(a2(), 'base-sepolia', tokenA2, 6n)
      await submittedIn(b(), 'sepolia', sampleAsset, 7n)
      expect(await right(a().accountNoncesInFlight(facilitator))).to.deep.equal([5n, 6n])
      expect(await right(a2().accountNoncesInFlight(facilitator))).to.deep.equal([5n, 6n])
      expect(await right(b().accountNoncesInFlight(facilitator))).to.deep.equal([7n])
    })

    it("a Permit2 nonce is one row per chain: another token's route meets it, another chain has its own", async () => {
      await truncate()
      const input = newPermit2Settlement({ network: 'base-sepolia' })
      const first = claimed(await right(a().claim(input)))
      expect(await right(a2().claim({ ...input, asset: tokenA2 }))).to.deep.equal({ _tag: 'Conflict', existing: first })
      const onB = await right(b().claim({ ...input, network: 'sepolia' }))
      expect(onB._tag).to.equal('Claimed')
    })

    it("claims of several scopes in one tick go in one statement, each row recording its scope's chain", async () => {
      await truncate()
      const before = statements
      const results = await Promise.all([
        right(a().claim(newSettlement({ network: 'base-sepolia' }))),
        right(b().claim(newSettlement({ network: 'sepolia' }))),
        right(journals.journal.claim(newSettlement({ network: 'unregistered' }))),
      ])
      expect(statements - before).to.equal(1)
      expect(results.map((r) => r._tag)).to.deep.equal(['Claimed', 'Claimed', 'Claimed'])
      expect(
        (await db.knex('settlements').select('chain_id').orderBy('id')).map(
          (r: { chain_id: string | null }) => r.chain_id,
        ),
      ).to.deep.equal([chainA, chainB, null])
    })
  })
})
