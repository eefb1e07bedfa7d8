import { canonical } from './journal-sql.js'
import type { ClaimResult, SettlementKey } from '@x402-facilitator/domain'
import { claimSql, claimValues, keyedByNonceSpace, nonceSpaceOf, type ClaimOf } from './journal-claim-sql.js'
import { permit2ClaimSql } from './journal-permit2-claim-sql.js'
import { refusedByTheDatabase, type RunStatement } from './journal-statements.js'
import { asError, perTickBatch } from './per-tick-batch.js'
import { decodeClaimRow, type ClaimRow } from './settlement-row.js'

const keyIn = (network: string, space: string, payer: string, nonce: string): string =>
  `${network}|${canonical(space)}|${canonical(payer)}|${canonical(nonce)}`
const keyString = (key: SettlementKey): string => keyIn(key.network, key.asset, key.payer, key.nonce)

/**
 * The unique keys a claim's insert may meet (docs/ARCHITECTURE.md §5, "Nonce spaces"): two claims sharing one go in
 * separate statements, the first called first. Its own key, in its nonce space; for a Permit2 claim also the old key
 * (network, token, payer, nonce), which an EIP-3009 claim of the same 32 bytes holds, and its sponsored permit.
 */
const claimKeys = ({ settlement: s }: ClaimOf): string[] => {
  const oldKey = keyString(s)
  if (!keyedByNonceSpace(s)) return [oldKey]
  const permit = s.permit2?.sponsoredPermit
  return [
    keyIn(s.network, nonceSpaceOf(s), s.payer, s.nonce),
    oldKey,
    ...(permit === undefined ? [] : [keyIn(s.network, s.asset, s.payer, `permit ${permit.nonce}`)]),
  ]
}

/** Postgres refused the statement for a unique index another writer's row already holds: the next snapshot sees it. */
const lostRace = (error: unknown): boolean =>
  refusedByTheDatabase(error) && (error as { readonly code?: string }).code === '23505'

/**
 * What the claim statement's row for one authorization says; `undefined`: no answer yet. No row means the conflicting
 * row was committed after the statement's snapshot was taken; a `released` one, that someone else claimed it again
 * meanwhile. Either way the next snapshot tells.
 */
const claimAnswer = (row: ClaimRow | undefined): ClaimResult | undefined => {
  if (row?.claimed === true) return { _tag: 'Claimed', settlement: row.settlement }
  if (row !== undefined && (row.held || row.settlement.state !== 'released'))
    return { _tag: 'Conflict', existing: row.settlement }
  return undefined
}

/** `i` of a Permit2 claim statement's row: its claim's place in the values, from 0 here. */
const placeOf = (row: unknown): number => {
  const i = (row as { readonly i?: unknown }).i
  if (typeof i !== 'string' || !/^[1-9][0-9]*$/.test(i)) throw new Error(`a claim row without its place: ${String(i)}`)
  return Number(i) - 1
}

/**
 * `claim` (docs/ARCHITECTURE.md §5, "Journal writes, one statement per tick"): the EIP-3009 claims of one tick share
 * one statement, its Permit2 claims another (a Permit2 statement names the nonce-space key as its conflict target,
 * which Postgres refuses until that index is valid: EIP-3009 claims must not wait for it).
 */
export const makeClaim = (run: RunStatement, claimRetries: number): ((claim: ClaimOf) => Promise<ClaimResult>) => {
  const sqlOf = (claim: ClaimOf): string => (keyedByNonceSpace(claim.settlement) ? permit2ClaimSql : claimSql)

  const claimOne = async (claim: ClaimOf): Promise<ClaimResult> => {
    const values = claimValues([claim])
    for (let attempt = 1; attempt <= claimRetries; attempt++) {
      const answer = await run(sqlOf(claim), values).then(
        (result) => claimAnswer(result.rows.map(decodeClaimRow)[0]),
        (error: unknown) => {
          if (lostRace(error) && attempt < claimRetries) return undefined
          throw error
        },
      )
      if (answer !== undefined) return answer
    }
    throw new Error(`the authorization's row kept changing during ${claimRetries} attempts`)
  }

  /** Each claim's answer from one statement: by key (EIP-3009), by place (Permit2: its row may be another's). */
  const sharedAnswers = async (claims: ReadonlyArray<ClaimOf>): Promise<Array<ClaimResult | undefined>> => {
    const { rows } = await run(sqlOf(claims[0]!), claimValues(claims))
    if (!keyedByNonceSpace(claims[0]!.settlement)) {
      const byKey = new Map(rows.map(decodeClaimRow).map((row) => [keyString(row.settlement), row]))
      return claims.map(({ settlement }) => claimAnswer(byKey.get(keyString(settlement))))
    }
    const byPlace = new Map(rows.map((row) => [placeOf(row), decodeClaimRow(row)]))
    return claims.map((_, i) => claimAnswer(byPlace.get(i)))
  }

  /** Claims of one kind in one statement; one its snapshot could not decide goes alone, its failure its own. */
  const together = async (claims: ReadonlyArray<ClaimOf>): Promise<Array<ClaimResult | Error>> => {
    if (claims.length <= 1) return Promise.all(claims.map((claim) => claimOne(claim).catch(asError)))
    let answers: Array<ClaimResult | undefined>
    try {
      answers = await sharedAnswers(claims)
    } catch (error) {
      // Lost (it may have committed): each call's failure. Refused (rolled back): each alone, in order.
      if (!refusedByTheDatabase(error)) return claims.map(() => asError(error))
      const alone: Array<ClaimResult | Error> = []
      for (const claim of claims) alone.push(await claimOne(claim).catch(asError))
      return alone
    }
    return Promise.all(claims.map((claim, i) => answers[i] ?? claimOne(claim).catch(asError)))
  }

  const claimMany = async (claims: ReadonlyArray<ClaimOf>): Promise<ReadonlyArray<ClaimResult | Error>> => {
    const permit2 = claims.map((claim) => keyedByNonceSpace(claim.settlement))
    const [eip3009Answers, permit2Answers] = await Promise.all([
      together(claims.filter((_, i) => !permit2[i])),
      together(claims.filter((_, i) => permit2[i])),
    ])
    return permit2.map((isPermit2) => (isPermit2 ? permit2Answers : eip3009Answers).shift()!)
  }

  return perTickBatch({ one: claimOne, many: claimMany, keysOf: claimKeys, refusedByTheDatabase })
}
