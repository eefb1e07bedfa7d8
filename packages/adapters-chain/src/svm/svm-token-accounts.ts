import { address } from '@solana/kit'
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '@x402-facilitator/domain'
import { findAssociatedTokenPda } from '@solana-program/token'
import { LRUCache } from 'lru-cache'

/**
 * `owner`'s associated token account for `mint` under each token program: where an exact payment to it must go
 * (`SvmPaymentTerms.payToAccountOf`). Two program-address derivations (SHA-256 searches) per request cost a Solana
 * verify about 3 ms of CPU of its 10–12 (npm run bench -- --solana, profiled): a payee's are kept (a few payees take
 * most payments).
 */
export const associatedTokenAccounts = async (
  owner: string,
  mint: string,
): Promise<(tokenProgram: string) => string> => {
  const key = `${owner}/${mint}`
  const known = derived.get(key)
  if (known !== undefined) return known
  const accounts = await derive(owner, mint)
  derived.set(key, accounts)
  return accounts
}

const derived = new LRUCache<string, (tokenProgram: string) => string>({ max: 10_000 })

const derive = async (owner: string, mint: string): Promise<(tokenProgram: string) => string> => {
  const under = async (tokenProgram: string) =>
    (
      await findAssociatedTokenPda({ owner: address(owner), mint: address(mint), tokenProgram: address(tokenProgram) })
    )[0]
  const [token, token2022] = await Promise.all([under(TOKEN_PROGRAM), under(TOKEN_2022_PROGRAM)])
  return (tokenProgram) => (tokenProgram === TOKEN_2022_PROGRAM ? token2022 : token)
}
