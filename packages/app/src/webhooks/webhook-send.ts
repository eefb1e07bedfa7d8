/** What one attempt came to: delivered on a 2xx; anything else (a 3xx too: no redirect is followed) failed. */
export type SendOutcome =
  | { readonly delivered: true; readonly status: number }
  | { readonly delivered: false; readonly status: number | null; readonly error: string }

/** POSTs one delivery, bounded by `timeoutMs`; never follows a redirect, never throws. */
export const sendWebhook = async (
  url: string,
  body: string,
  headers: Readonly<Record<string, string>>,
  timeoutMs: number,
): Promise<SendOutcome> => {
  try {
    const response = await fetch(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', ...headers },
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    })
    // The body is not read: only the status counts (and an unread body would hold the connection).
    await response.body?.cancel().catch(() => undefined)
    if (response.status >= 200 && response.status < 300) return { delivered: true, status: response.status }
    const redirected = response.status >= 300 && response.status < 400
    return {
      delivered: false,
      status: response.status,
      error: redirected ? `redirect ${response.status} not followed` : `status ${response.status}`,
    }
  } catch (error) {
    const name = error instanceof Error ? error.name : ''
    const reason = name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : describe(error)
    return { delivered: false, status: null, error: reason }
  }
}

const describe = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error)
  const cause = (error as Error & { cause?: unknown }).cause
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message
}
