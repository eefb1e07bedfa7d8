import { chainUnavailable, type Address, type BatchItem, type TransferSubmitter } from '@x402-facilitator/domain'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Logger as PinoLogger } from 'pino'

type GateState =
  | { readonly kind: 'held' }
  | { readonly kind: 'lost'; readonly reason: string; readonly heldElsewhere: boolean }
  /** Held again; settling waits for a recovery pass of this replica's rows, which another replica may have touched. */
  | { readonly kind: 'recovering' }

/**
 * What this replica may do as its advisory lock stands (docs/ARCHITECTURE.md §5.5): without the lock another replica
 * may finish its rows, so it neither settles nor recovers nor signs until the lock is back and a recovery pass has run.
 */
export class ReplicaLockGate {
  private state: GateState = { kind: 'held' }
  /** Goes up at each loss and regain, so that a pass started before a loss does not reopen the gate. */
  private era = 0
  private regainedListeners: Array<() => void> = []

  constructor(
    private readonly logger: PinoLogger,
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

  /** `/readyz`'s `replicaLock` part: throws while settling is refused. */
  readonly readiness = async (): Promise<string> => {
    const refusal = this.settleRefusal()
    if (refusal !== undefined) throw new Error(refusal)
    return 'held'
  }

  lost(reason: string, heldElsewhere = false): void {
    if (this.state.kind !== 'lost') this.era++
    this.state = { kind: 'lost', reason, heldElsewhere }
  }

  regained(): void {
    this.era++
    this.state = { kind: 'recovering' }
    this.regainedListeners.forEach((listener) => listener())
  }

  onRegained(listener: () => void): void {
    this.regainedListeners.push(listener)
  }

  /** A recovery pass begun in `era` has ended: once the lock came back before it began, settling resumes. */
  recovered(era: number): void {
    if (this.state.kind !== 'recovering' || era !== this.era) return
    this.state = { kind: 'held' }
    this.logger.info(
      { facilitator: this.account },
      'the replica advisory lock is held again and this replica recovered its rows: settling again',
    )
  }

  /** The submitter whose signing steps refuse while the lock is not held: a settle or pass under way signs nothing more. */
  guard(submitter: TransferSubmitter): TransferSubmitter {
    const refused = () => TE.left(chainUnavailable(this.settleRefusal() ?? 'replica lock not held'))
    return {
      ...submitter,
      prepare: (authorization, signature, executionGas, contractPayer) =>
        this.lockHeld ? submitter.prepare(authorization, signature, executionGas, contractPayer) : refused(),
      ...(submitter.prepareBatch === undefined
        ? {}
        : {
            prepareBatch: (items: ReadonlyArray<BatchItem>) =>
              this.lockHeld && submitter.prepareBatch ? submitter.prepareBatch(items) : refused(),
          }),
      prepareReplacement: (previous) => (this.lockHeld ? submitter.prepareReplacement(previous) : refused()),
      fillNonceGaps: (recorded) => (this.lockHeld ? submitter.fillNonceGaps(recorded) : refused()),
    }
  }
}
