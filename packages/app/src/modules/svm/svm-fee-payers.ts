import { readFile } from 'node:fs/promises'
import { svmFeePayerFromSecret } from '@x402-facilitator/adapters-chain'
import type { SvmFeePayer } from '@x402-facilitator/domain'

/**
 * A network's fee payer keys: its own file, else the service's (`SOLANA_FEE_PAYER_KEYS_FILE`), one key a line (blank
 * lines and `#` comments skipped). A bad line is named by its number, never echoed.
 */
export const loadFeePayers = async (file: string | undefined, network: string): Promise<SvmFeePayer[]> => {
  if (file === undefined)
    throw new Error(
      `configuration: Solana network ${network} needs fee payer keys: SOLANA_FEE_PAYER_KEYS_FILE, or its feePayerKeysFile`,
    )
  const text = await readFile(file, 'utf8').catch(() => {
    throw new Error(`configuration: cannot read the Solana fee payer keys file ${file}`)
  })
  const signers: SvmFeePayer[] = []
  for (const [i, line] of text.split('\n').entries()) {
    const secret = line.trim()
    if (secret === '' || secret.startsWith('#')) continue
    try {
      signers.push(await svmFeePayerFromSecret(secret))
    } catch (error) {
      throw new Error(`configuration: ${file} line ${i + 1}: ${(error as Error).message}`, { cause: error })
    }
  }
  if (signers.length === 0) throw new Error(`configuration: the Solana fee payer keys file ${file} holds no key`)
  return signers
}
