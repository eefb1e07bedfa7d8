import type { ChainReadiness } from './modules/chain/chain-family.js'
import type { EvmAddress as Address, Store, UnfinishedState } from '@x402-facilitator/domain'

/** What one read gave: its value, or why it failed. */
export type Reading<A> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly error: string }

export interface KeyReadings {
  readonly account: Address
  readonly balanceWei: Reading<bigint>
  /** Its pending nonce minus its mined one: transactions sent and not yet mined. */
  readonly pendingTransactions: Reading<bigint>
  /** With a batch settler: whether it still lets this key settle. */
  readonly settlerAllows?: Reading<boolean>
}

export interface ProbeReadings {
  /** When this refresh began (ms since the epoch). */
  readonly takenAt: number
  readonly head: Reading<bigint>
  readonly settlements: Reading<Record<UnfinishedState, number>>
  readonly pendingMigrations: Reading<ReadonlyArray<string>>
  readonly keys: ReadonlyArray<KeyReadings>
}

const read = async <A>(run: () => Promise<A>): Promise<Reading<A>> => {
  try {
    return { ok: true, value: await run() }
  } catch (error) {
    // What fails here (the store, the RPC, the decoders) throws Errors.
    return { ok: false, error: (error as Error).message }
  }
}

/**
 * What `/readyz` and `/metrics` report about the chain and the database, read in the background every `intervalMs`
 * and at start, never per request: anonymous scrapes cost Postgres and the node nothing (issue 23 item 6). One refresh
 * runs at a time; each read is bounded by RPC_TIMEOUT_MS / DB_TIMEOUT_MS, and a read that fails is kept as failing.
 */
export class ProbeSnapshot {
  private current: ProbeReadings | undefined
  private running: Promise<void> | undefined
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly deps: {
      chain: ChainReadiness
      store: Pick<Store, 'readiness' | 'metrics'>
      facilitators: ReadonlyArray<Address>
      settlerAddress?: Address
    },
    private readonly now: () => number = Date.now,
  ) {}

  get settlerAddress(): Address | undefined {
    return this.deps.settlerAddress
  }

  /** The last refresh's readings; undefined before the first one ended. */
  get readings(): ProbeReadings | undefined {
    return this.current
  }

  /** Seconds since the last refresh began; undefined before the first one ended. */
  ageSeconds(): number | undefined {
    return this.current && (this.now() - this.current.takenAt) / 1000
  }

  /** Reads everything once; a refresh already running is joined, not doubled. */
  refresh(): Promise<void> {
    this.running ??= this.readAll()
      .then((readings) => {
        this.current = readings
      })
      .finally(() => {
        this.running = undefined
      })
    return this.running
  }

  start(intervalMs: number): void {
    this.timer ??= setInterval(() => void this.refresh(), intervalMs)
  }

  /** Stops the timer and waits for a refresh in flight, so that the pools it reads close after it. */
  async stop(): Promise<void> {
    clearInterval(this.timer)
    this.timer = undefined
    await this.running
  }

  private async readAll(): Promise<ProbeReadings> {
    const { chain, store, settlerAddress } = this.deps
    const takenAt = this.now()
    const [head, settlements, migrations, keys] = await Promise.all([
      read(() => chain.head()),
      read(() => store.metrics.unfinishedSettlements()),
      read(() => store.readiness.pendingMigrations()),
      Promise.all(
        this.deps.facilitators.map(async (account): Promise<KeyReadings> => {
          const [balanceWei, pendingTransactions, allows] = await Promise.all([
            read(() => chain.gasBalance(account)),
            read(() => chain.pendingTransactions(account)),
            settlerAddress && read(() => chain.settlerAllows(settlerAddress, account)),
          ])
          return { account, balanceWei, pendingTransactions, ...(allows && { settlerAllows: allows }) }
        }),
      ),
    ])
    return { takenAt, head, settlements, pendingMigrations: migrations, keys }
  }
}
