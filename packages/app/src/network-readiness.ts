import type { Readiness } from '@x402-facilitator/domain'

/** What the database holds once for the whole process, whatever the network. */
const PROCESS_WIDE = new Set(['database', 'migrations'])

/**
 * `/readyz` over several networks: with one, its checks as they are; with more, each network's own checks named after it
 * (`chain:base-sepolia`), so that a failing network is named; the database's once.
 */
export const networksReadiness =
  (networks: ReadonlyArray<{ readonly network: string; readonly readiness: Readiness }>): Readiness =>
  async () => {
    if (networks.length === 1) return networks[0]!.readiness()
    const answers = await Promise.all(
      networks.map(async ({ network, readiness }) => ({ network, ...(await readiness()) })),
    )
    const checks: Record<string, { ok: boolean; detail: string }> = {}
    for (const { network, checks: own } of answers)
      for (const [name, check] of Object.entries(own))
        checks[PROCESS_WIDE.has(name) ? name : `${name}:${network}`] = check
    const ages = answers.map((a) => a.ageSeconds)
    return { checks, ageSeconds: ages.includes(undefined) ? undefined : Math.max(...(ages as number[])) }
  }
