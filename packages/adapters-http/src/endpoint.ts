import type { Answer } from './respond.js'

/** Which failure shape an endpoint answers in (spec: verify uses `valid:false`, settle `success:false`). */
export type Endpoint = 'verify' | 'settle' | 'other'

export const endpointOf = (path: string): Endpoint =>
  path === '/api/facilitator/verify' ? 'verify' : path === '/api/facilitator/settle' ? 'settle' : 'other'

/** The endpoint's failure body for a code and message. */
export const failureBody = (endpoint: Endpoint, code: string, message: string): Record<string, unknown> => {
  switch (endpoint) {
    case 'verify':
      return { valid: false, invalidReason: message, reasonCode: code }
    case 'settle':
      return { success: false, error: message, errorCode: code }
    case 'other':
      return { error: message, errorCode: code }
  }
}

/** A failure answered in the endpoint's shape, its code also the reason code. */
export const failure = (endpoint: Endpoint, status: number, code: string, message: string): Answer => ({
  status,
  body: failureBody(endpoint, code, message),
  reasonCode: code,
})
