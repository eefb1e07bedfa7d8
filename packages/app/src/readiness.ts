import type { Address, Readiness, ReadinessCheck, ReplicaLockGate } from '@x402-facilitator/domain'
import type { KeyReadings, ProbeSnapshot, Reading } from './probe-snapshot.js'

const checkOf = <A>(reading: Reading<A>, judge: (value: A) => ReadinessCheck): ReadinessCheck =>
  reading.ok ? judge(reading.value) : { ok: false, detail: reading.error }

/**
 * One check per signing key, as one entry (docs/ARCHITECTURE.md §5.8): ready when every key's is. With one key its
 * detail is that key's; with several, each key's detail after its account, the failing ones first.
 */
const perKey = (results: ReadonlyArray<ReadinessCheck & { account: Address }>): ReadinessCheck => {
  if (results.length === 1) return { ok: results[0]!.ok, detail: results[0]!.detail }
  const failing = results.filter((r) => !r.ok)
  const ordered = [...failing, ...results.filter((r) => r.ok)]
  return { ok: failing.length === 0, detail: ordered.map((r) => `${r.account}: ${r.detail}`).join('; ') }
}

const eachKey = (keys: ReadonlyArray<KeyReadings>, check: (key: KeyReadings) => ReadinessCheck) =>
  perKey(keys.map((key) => ({ account: key.account, ...check(key) })))

/**
 * `/readyz`: chain and database reachable, migrations applied, gas above the floor and the replica lock held (§5.5)
 * for every signing key, and with a batch settler, every key still allowed to call it (its owner may revoke that while
 * we run, §5.7). All but the lock (this process' own state) come from the background snapshot: a snapshot older than
 * `staleAfterSeconds` (its refresh hangs) fails every part it holds.
 */
export const makeReadiness =
  (deps: {
    snapshot: ProbeSnapshot
    minGasBalanceWei: bigint
    replicaLocks: ReadonlyArray<ReplicaLockGate>
    staleAfterSeconds: number
  }): Readiness =>
  async () => {
    const { snapshot, minGasBalanceWei } = deps
    const replicaLock = perKey(
      deps.replicaLocks.map((gate) => {
        const refusal = gate.settleRefusal()
        return { account: gate.account ?? ('' as Address), ok: refusal === undefined, detail: refusal ?? 'held' }
      }),
    )
    const readings = snapshot.readings
    const age = snapshot.ageSeconds()
    if (readings === undefined || age === undefined || age > deps.staleAfterSeconds) {
      const stale = {
        ok: false,
        detail:
          age === undefined
            ? 'not read yet'
            : `not read for ${Math.round(age)} s: the background refresh does not finish`,
      }
      return {
        checks: { chain: stale, database: stale, migrations: stale, gasBalance: stale, replicaLock },
        ageSeconds: age,
      }
    }
    const settler = readings.keys.every((key) => key.settlerAllows === undefined)
      ? undefined
      : eachKey(readings.keys, (key) =>
          checkOf(key.settlerAllows!, (allows) => ({
            ok: allows,
            detail: allows
              ? deps.snapshot.settlerAddress!
              : `${deps.snapshot.settlerAddress} no longer lets ${key.account} settle`,
          })),
        )
    const checks = {
      chain: checkOf(readings.head, (head) => ({ ok: true, detail: `block ${head}` })),
      database: checkOf(readings.settlements, () => ({ ok: true, detail: 'answers' })),
      migrations: checkOf(readings.pendingMigrations, (pending) =>
        pending.length ? { ok: false, detail: `pending: ${pending.join(', ')}` } : { ok: true, detail: 'all applied' },
      ),
      gasBalance: eachKey(readings.keys, (key) =>
        checkOf(key.balanceWei, (balance) =>
          balance < minGasBalanceWei
            ? { ok: false, detail: `${balance} wei, below the floor of ${minGasBalanceWei}` }
            : { ok: true, detail: `${balance} wei` },
        ),
      ),
      replicaLock,
      ...(settler && { settler }),
    }
    return { checks, ageSeconds: age }
  }
