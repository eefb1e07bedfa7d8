/** The app's tests wait for a state with the one helper every package's tests share. */
export { waitFor } from '@x402-facilitator/domain/test-support'
