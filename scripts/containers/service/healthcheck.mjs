// The image's HEALTHCHECK: healthy while GET /readyz answers 200 (docs/OPERATIONS.md, "Probes").
const host = process.env.HOST === undefined || ['', '0.0.0.0', '::'].includes(process.env.HOST) ? '127.0.0.1' : process.env.HOST
const url = `http://${host.includes(':') ? `[${host}]` : host}:${process.env.PORT || '4021'}/readyz`
const response = await fetch(url, { signal: AbortSignal.timeout(4_000) }).catch(() => undefined)
process.exit(response?.status === 200 ? 0 : 1)
