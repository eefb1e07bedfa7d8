import type { Address } from '../../model/payment.js'
import type { Log } from '../../ports/log.js'
import type { SigningLock } from '../../ports/signing-key.js'

type GateState =
  | { readonly kind: 'held' }
  | { readonly kind: 'lost'; readonly reason: string; readonly heldElsewhere: boolean }
  /** Held again; settling waits for a recovery pass of this replica's rows, which another replica may have touched. */
  | { readonly kind: 'recovering' }

/**
 * What this replica may do as its advisory lock stands (docs/ARCHITECTURE.md §5.5): without the lock another replica
 * may finish its rows, so it neither settles nor recovers nor signs until the lock is back and a recovery pass has run.
 */
export class ReplicaLockGate implements SigningLock {
  private state: GateState = { kind: 'held' }
  /** Goes up at each loss and regain, so that a pass started before a loss does not reopen the gate. */
  private era = 0
  private regainedListeners: Array<() => void> = []
  /** The lanes sharing this lock (one per token of its network), and those whose pass since the regain has ended. */
  private lanes = 0
  private recoveredLanes = new Set<number>()
  /**
   * Recovery passes and finishes of every lane of this (chain, key), one after another: the lanes of a network's
   * tokens share the key's nonces, and two passes filling its nonce gaps at once could each leave a nonce to the other.
   */
  private pass: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly logger: Log,
    /** The signing account whose lock this is (docs/ARCHITECTURE.md §5.8: one per key), named in refusals. */
    readonly account?: Address,
  ) {}

  private get ofKey(): string {
    return this.account === undefined ? '' : ` of ${this.account}`
  }

  /** Whether the lock is held (settling may still wait for the recovery pass). */
  get lockHeld(): boolean {
    return this.state.kind !== 'lost'
  }

  get currentEra(): number {
    return this.era
  }

  /** Why a settle is refused now, or undefined when it may go on. */
  settleRefusal(): string | undefined {
    switch (this.state.kind) {
      case 'held':
        return undefined
      case 'recovering':
        return `this replica holds its Postgres advisory lock${this.ofKey} again and is recovering its rows first`
      case 'lost':
        return `this replica lost its Postgres advisory lock${this.ofKey} (${this.state.reason}) and settles nothing${this.account === undefined ? '' : ' with that key'} until it holds it again`
    }
  }

  lost(reason: string, heldElsewhere = false): void {
    if (this.state.kind !== 'lost') this.era++
    this.state = { kind: 'lost', reason, heldElsewhere }
  }

  regained(): void {
    this.era++
    this.recoveredLanes.clear()
    this.state = { kind: 'recovering' }
    this.regainedListeners.forEach((listener) => listener())
  }

  onRegained(listener: () => void): void {
    this.regainedListeners.push(listener)
  }

  /** A lane sharing this lock: its number, for `recovered`. */
  register(): number {
    return this.lanes++
  }

  /** Runs `run` after every pass or finish of this lock's lanes queued before it. */
  inTurn<A>(run: () => Promise<A>): Promise<A> {
    const next = this.pass.then(run)
    this.pass = next.catch(() => undefined)
    return next
  }

  /**
   * Lane `lane`'s recovery pass begun in `era` has ended: once the lock came back before it began, and every lane of the
   * lock has had its pass, settling resumes (each token's rows recovered, not only the first's).
   */
  recovered(era: number, lane = 0): void {
    if (this.state.kind !== 'recovering' || era !== this.era) return
    this.recoveredLanes.add(lane)
    if (this.recoveredLanes.size < Math.max(1, this.lanes)) return
    this.state = { kind: 'held' }
    this.logger.info(
      { facilitator: this.account },
      'the replica advisory lock is held again and this replica recovered its rows: settling again',
    )
  }
}
