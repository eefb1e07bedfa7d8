/**
 * Where the domain's long-running parts (lanes, replica lock gates) say what an operator must hear: a structured log
 * line, its fields first (pino's loggers are one).
 */
export interface Log {
  readonly info: (fields: object, message: string) => void
  readonly warn: (fields: object, message: string) => void
  readonly error: (fields: object, message: string) => void
}
