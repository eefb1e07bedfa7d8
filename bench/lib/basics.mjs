// The small helpers every part of the benchmark uses.
export const say = (line) => console.log(line)
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
export const round = (x, digits = 1) => (Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : x)
