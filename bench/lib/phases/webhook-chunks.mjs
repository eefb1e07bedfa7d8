// How the webhook-settle phase splits each service's payments: A B B A twice (control, webhook, webhook, control), so
// that a chain slowing as it grows, not at an even pace (anvil's CPU per transfer grows with its chain; the service
// batches less when slower), weighs on both alike.
export const WEBHOOK_ROUNDS = 2
export const WEBHOOK_CHUNKS = 2 * WEBHOOK_ROUNDS

/** The size of chunk `index` of `total` payments, the first ones taking the remainder. */
export const chunkSize = (total, index) => Math.floor(total / WEBHOOK_CHUNKS) + (index < total % WEBHOOK_CHUNKS ? 1 : 0)

/** `list` cut into the chunks `chunkSize` gives. */
export const chunked = (list) => {
  const parts = []
  let start = 0
  for (let i = 0; i < WEBHOOK_CHUNKS; i++) {
    const size = chunkSize(list.length, i)
    parts.push(list.slice(start, start + size))
    start += size
  }
  return parts
}
