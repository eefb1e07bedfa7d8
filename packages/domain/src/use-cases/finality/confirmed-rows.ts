import type { SettlementJournal } from '../../ports/settlement-journal.js'

/**
 * Whether a row became `confirmed` since the finality watcher last took the note. The watcher checks once per new head;
 * a row mined into the head it already checked (its receipt recorded after that check) would wait for the next head,
 * which a chain that mines only on demand (anvil's automine) may never bring.
 */
export class ConfirmedRows {
  private noted = false

  note(): void {
    this.noted = true
  }

  /** Whether one was noted since the last take; the note is cleared. */
  take(): boolean {
    const noted = this.noted
    this.noted = false
    return noted
  }
}

/** The writes that can leave a row `confirmed`. */
const CONFIRMING = ['markMined', 'markSettledElsewhere', 'markMinedAgain', 'markReleasedMined'] as const

/** The same journal; each write that can confirm a row notes it once it has run, whatever it answered. */
export const notingConfirmations = (journal: SettlementJournal, rows: ConfirmedRows): SettlementJournal => {
  const noting: Partial<Record<(typeof CONFIRMING)[number], unknown>> = {}
  for (const name of CONFIRMING) {
    const write = journal[name] as (...args: unknown[]) => () => Promise<unknown>
    noting[name] =
      (...args: unknown[]) =>
      () =>
        write(...args)().finally(() => rows.note())
  }
  return { ...journal, ...noting } as SettlementJournal
}
