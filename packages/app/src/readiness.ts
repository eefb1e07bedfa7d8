import type { ChainRpc } from '@x402-facilitator/adapters-chain'
import type { Readiness } from '@x402-facilitator/adapters-http'
import { pendingMigrations } from '@x402-facilitator/adapters-persistence'
import type { Address } from '@x402-facilitator/domain'
import type { Knex } from 'knex'
import { nodeQuantity } from './node-quantity.js'
import type { ReplicaLockGate } from './replica-lock-gate.js'
import { settlerAllows } from './settler-check.js'

const check = async (run: () => Promise<string>) => {
  try {
    return { ok: true, detail: await run() }
  } catch (error) {
    // What fails here (knex, the RPC, the checks above) throws Errors.
    return { ok: false, detail: (error as Error).message }
  }
}

/**
 * One check per signing key, as one entry (docs/ARCHITECTURE.md §5.8): ready when every key's is. With one key its
 * detail is that key's; with several, each key's detail after its account, the failing ones first.
 */
const perKey = async (accounts: ReadonlyArray<Address>, run: (account: Address, i: number) => Promise<string>) => {
  const results = await Promise.all(accounts.map(async (account, i) => ({ account, ...(await check(() => run(account, i))) })))
  if (results.length === 1) return { ok: results[0]!.ok, detail: results[0]!.detail }
  const failing = results.filter((r) => !r.ok)
  const ordered = [...failing, ...results.filter((r) => r.ok)]
  return { ok: failing.length === 0, detail: ordered.map((r) => `${r.account}: ${r.detail}`).join('; ') }
}

/**
 * `/readyz`: chain and database reachable, migrations applied, gas above the floor and the replica lock held (§5.5) for
 * every signing key, and with a batch settler, every key still allowed to call it (its owner may revoke that while we
 * run, §5.7).
 */
export const makeReadiness =
  (deps: {
    rpc: ChainRpc
    knex: Knex
    facilitators: ReadonlyArray<Address>
    minGasBalanceWei: bigint
    replicaLocks: ReadonlyArray<ReplicaLockGate>
    settlerAddress?: Address
  }): Readiness =>
  async () => {
    const { settlerAddress } = deps
    const settler =
      settlerAddress &&
      perKey(deps.facilitators, async (account) => {
        if (!(await settlerAllows(deps.rpc, settlerAddress, account))) throw new Error(`${settlerAddress} no longer lets ${account} settle`)
        return settlerAddress
      })
    const [chain, database, migrations, gas, replicaLock, settlerCheck] = await Promise.all([
      check(async () => `block ${nodeQuantity(await deps.rpc.read('eth_blockNumber'), 'eth_blockNumber')}`),
      check(async () => {
        await deps.knex.raw('select 1')
        return 'answers'
      }),
      check(async () => {
        const pending = await pendingMigrations(deps.knex)
        if (pending.length) throw new Error(`pending: ${pending.join(', ')}`)
        return 'all applied'
      }),
      perKey(deps.facilitators, async (account) => {
        const balance = nodeQuantity(await deps.rpc.read('eth_getBalance', [account, 'latest']), 'eth_getBalance')
        if (balance < deps.minGasBalanceWei) throw new Error(`${balance} wei, below the floor of ${deps.minGasBalanceWei}`)
        return `${balance} wei`
      }),
      perKey(deps.facilitators, (_account, i) => deps.replicaLocks[i]!.readiness()),
      settler,
    ])
    return { chain, database, migrations, gasBalance: gas, replicaLock, ...(settlerCheck && { settler: settlerCheck }) }
  }
