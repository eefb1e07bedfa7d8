import { newSettlement, right, SVM_SAMPLE_NETWORK, svmSettlement } from '@x402-facilitator/domain/journal-contract'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { type JournalDatabase, journalDatabase } from './journal-database.js'

/**
 * Migration 0016: each row is held to its own chain family's spelling, told by its chain id — an EVM row to 0x hex as
 * before, a Solana row to base58 addresses, a hex digest, base64 bytes.
 */
describe("the journal's checks hold each family to its spelling (migration 0016)", () => {
  let database: JournalDatabase
  before(async () => {
    database = await journalDatabase()
    await database.db.knex('journal_networks').insert([
      { name: newSettlement().network, chain_id: 'eip155:84532' },
      { name: SVM_SAMPLE_NETWORK, chain_id: SVM_SAMPLE_NETWORK },
    ])
  })
  after(() => database.close())

  it('refuses a Solana spelling on an EVM row and an EVM spelling on a Solana row; takes each its own', async () => {
    const { journal } = database
    const refused = async (claim: ReturnType<typeof newSettlement>) => {
      const result = await journal.claim(claim)()
      expect(E.isLeft(result), JSON.stringify(claim.payer)).to.equal(true)
    }
    await refused(svmSettlement({ network: newSettlement().network }))
    await refused(newSettlement({ payer: svmSettlement().payer }))
    await refused(svmSettlement({ payer: newSettlement().payer }))
    await refused(svmSettlement({ nonce: newSettlement().nonce }))
    await refused(svmSettlement({ signature: 'not base64!' }))
    expect((await right(journal.claim(svmSettlement())))._tag).to.equal('Claimed')
    expect((await right(journal.claim(newSettlement())))._tag).to.equal('Claimed')
  })
})
