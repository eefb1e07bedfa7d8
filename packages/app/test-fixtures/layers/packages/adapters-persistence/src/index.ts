// Fixture for the layer check: the store adapter's package.
export const makePostgresStore = () => undefined
