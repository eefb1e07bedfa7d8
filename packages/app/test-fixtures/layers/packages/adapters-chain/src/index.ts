export const chain = 1
