/** One answer of the service, its body read as JSON. */
export interface JsonAnswer {
  readonly status: number
  readonly body: Record<string, unknown>
  readonly headers: Headers
}

const answerOf = async (response: Response): Promise<JsonAnswer> => ({
  status: response.status,
  body: (await response.json()) as Record<string, unknown>,
  headers: response.headers,
})

/** A JSON POST (a string body is sent as it is). */
export const postJson = async (url: string, body: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> =>
  answerOf(
    await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  )

export const getJson = async (url: string): Promise<JsonAnswer> => answerOf(await fetch(url))
