/** One part the service needs to take traffic (the chain, the database, the migrations, gas…), as last read. */
export interface ReadinessCheck {
  readonly ok: boolean
  readonly detail: string
}

/**
 * Each part that must work for the service to take traffic, and how many seconds ago they were read (the service reads
 * them in the background, not per request); undefined: never read yet. `/readyz` answers it.
 */
export type Readiness = () => Promise<{
  readonly checks: Readonly<Record<string, ReadinessCheck>>
  readonly ageSeconds: number | undefined
}>
