/** Rule 9's arithmetic, in one place: what a payer may still spend here, never below zero. */
export const availableBalance = (balance: bigint, inFlight: bigint): bigint => (balance > inFlight ? balance - inFlight : 0n)
