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
 * `/readyz`: chain and database reachable, migrations applied, gas above the floor, the replica lock held (§5.5), and
 * with a batch settler, our key still allowed to call it (its owner may revoke that while we run, §5.7).
 */
export const makeReadiness =
  (deps: { rpc: ChainRpc; knex: Knex; facilitator: Address; minGasBalanceWei: bigint; replicaLock: ReplicaLockGate; settlerAddress?: Address }): Readiness =>
  async () => {
    const { settlerAddress } = deps
    const settler =
      settlerAddress &&
      check(async () => {
        if (!(await settlerAllows(deps.rpc, settlerAddress, deps.facilitator))) throw new Error(`${settlerAddress} no longer lets ${deps.facilitator} settle`)
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
      check(async () => {
        const balance = nodeQuantity(await deps.rpc.read('eth_getBalance', [deps.facilitator, 'latest']), 'eth_getBalance')
        if (balance < deps.minGasBalanceWei) throw new Error(`${balance} wei, below the floor of ${deps.minGasBalanceWei}`)
        return `${balance} wei`
      }),
      check(deps.replicaLock.readiness),
      settler,
    ])
    return { chain, database, migrations, gasBalance: gas, replicaLock, ...(settlerCheck && { settler: settlerCheck }) }
  }
