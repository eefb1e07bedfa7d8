import { readFile } from 'node:fs/promises'
import type { Address, AddressScreen } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Logger } from 'pino'
import { Counter, Gauge, type Registry } from 'prom-client'
import { describeFault, parseDenyList } from './parse-deny-list.js'

/** What a reload did: `unchanged` (the same text as last read), `loaded`, or `kept` (the last good list; `error`). */
export type ReloadResult =
  | { readonly _tag: 'unchanged' }
  | { readonly _tag: 'loaded'; readonly addresses: number }
  | { readonly _tag: 'kept'; readonly error: string }

const readText = (file: string): Promise<E.Either<string, string>> =>
  readFile(file, 'utf8').then(
    (text) => E.right(text),
    (error: NodeJS.ErrnoException) => E.left(`DENY_LIST_FILE ${file} cannot be read (${error.code ?? error.message})`),
  )

/**
 * The operator's deny list (docs/OPERATIONS.md "Screening"), one for every network (addresses are the same on every
 * EVM chain). Read at start (a bad file refuses the start); then read again every `intervalMs`, on SIGHUP and on
 * `reload()`. A text equal to the last one read is not judged again (so a broken file is logged once, not per tick). A
 * reload that fails keeps the last good list, logs an error and sets `facilitator_deny_list_reload_failing` to 1 until
 * a good file is read: never fails open.
 */
export class DenyListFile implements AddressScreen {
  private denied: ReadonlySet<Address>
  private lastText: string | undefined
  private reloading: Promise<ReloadResult> = Promise.resolve({ _tag: 'unchanged' })
  private timer: NodeJS.Timeout | undefined
  private readonly failing: Gauge
  private readonly failures: Counter
  private readonly size: Gauge

  private constructor(
    readonly file: string,
    text: string,
    denied: ReadonlySet<Address>,
    private readonly logger: Logger,
    registry: Registry,
  ) {
    this.lastText = text
    this.denied = denied
    this.failing = new Gauge({
      name: 'facilitator_deny_list_reload_failing',
      help: 'DENY_LIST_FILE: 1 while its last reload failed (the last good list is kept), else 0; alert on 1',
      registers: [registry],
    })
    this.failures = new Counter({
      name: 'facilitator_deny_list_reload_failures_total',
      help: 'DENY_LIST_FILE reloads that failed (unreadable, empty, a bad line); the last good list was kept',
      registers: [registry],
    })
    this.size = new Gauge({
      name: 'facilitator_deny_list_addresses',
      help: 'Addresses on the deny list in force',
      registers: [registry],
    })
    this.failing.set(0)
    this.size.set(denied.size)
  }

  /** Reads the file once; a file that cannot be read or parsed refuses the start, naming its line and reason. */
  static async open(file: string, logger: Logger, registry: Registry): Promise<DenyListFile> {
    const text = await readText(file)
    if (E.isLeft(text)) throw new Error(`configuration: ${text.left}`)
    const parsed = parseDenyList(text.right)
    if (E.isLeft(parsed)) throw new Error(`configuration: ${describeFault(file, parsed.left)}`)
    logger.info({ file, addresses: parsed.right.size }, 'deny list loaded')
    return new DenyListFile(file, text.right, parsed.right, logger, registry)
  }

  readonly isDenied = (address: Address): boolean => this.denied.has(address)

  get addresses(): number {
    return this.denied.size
  }

  /** Reads the file again (one reload at a time: a call during another waits for it, then reads). */
  reload(): Promise<ReloadResult> {
    this.reloading = this.reloading.then(() => this.readAgain())
    return this.reloading
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.reload(), intervalMs)
    this.timer.unref()
  }

  stop(): void {
    clearInterval(this.timer)
  }

  private async readAgain(): Promise<ReloadResult> {
    const text = await readText(this.file)
    const seen = E.isRight(text) ? text.right : `\u0000${text.left}`
    if (seen === this.lastText) return { _tag: 'unchanged' }
    this.lastText = seen
    const parsed = E.isLeft(text)
      ? text
      : pipe(
          parseDenyList(text.right),
          E.mapLeft((fault) => describeFault(this.file, fault)),
        )
    if (E.isLeft(parsed)) {
      this.failing.set(1)
      this.failures.inc()
      this.logger.error(
        { file: this.file, addresses: this.denied.size },
        `deny list reload failed, the last good list (${this.denied.size} addresses) is kept: ${parsed.left}`,
      )
      return { _tag: 'kept', error: parsed.left }
    }
    this.denied = parsed.right
    this.failing.set(0)
    this.size.set(parsed.right.size)
    this.logger.info({ file: this.file, addresses: parsed.right.size }, 'deny list reloaded')
    return { _tag: 'loaded', addresses: parsed.right.size }
  }
}
