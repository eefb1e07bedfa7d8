/** The Error `promise` rejects with; fails the test when it resolves or rejects with something else. */
export const rejection = async (promise: Promise<unknown>): Promise<Error> => {
  try {
    await promise
  } catch (error) {
    if (error instanceof Error) return error
  }
  throw new Error('expected a rejection with an Error')
}
