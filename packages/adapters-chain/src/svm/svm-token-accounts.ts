import { address } from '@solana/kit'
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '@x402-facilitator/domain'
import { findAssociatedTokenPda } from '@solana-program/token'

/**
 * `owner`'s associated token account for `mint` under each token program: where an exact payment to it must go
 * (`SvmPaymentTerms.payToAccountOf`).
 */
export const associatedTokenAccounts = async (
  owner: string,
  mint: string,
): Promise<(tokenProgram: string) => string> => {
  const under = async (tokenProgram: string) =>
    (
      await findAssociatedTokenPda({ owner: address(owner), mint: address(mint), tokenProgram: address(tokenProgram) })
    )[0]
  const [token, token2022] = await Promise.all([under(TOKEN_PROGRAM), under(TOKEN_2022_PROGRAM)])
  return (tokenProgram) => (tokenProgram === TOKEN_2022_PROGRAM ? token2022 : token)
}
