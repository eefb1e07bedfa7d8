/** `1500000n` with 6 decimals → `"1.5"`; whole amounts keep one decimal (`"1.0"`), as the spec's messages do. */
export const formatTokenAmount = (amount: bigint, decimals: number): string => {
  if (decimals === 0) return amount.toString()
  const scale = 10n ** BigInt(decimals)
  const whole = amount / scale
  const fraction = (amount % scale).toString().padStart(decimals, '0').replace(/0+$/, '')
  return `${whole}.${fraction === '' ? '0' : fraction}`
}
