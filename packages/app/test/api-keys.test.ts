import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'chai'
import { loadApiKeys } from '../src/api-keys.js'
import type { Config } from '../src/config.js'

const PAYEE = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01'
const OTHER = `0x${'22'.repeat(20)}`

const keysFile = async (text: string): Promise<string> => {
  const file = join(await mkdtemp(join(tmpdir(), 'api-keys-')), 'keys')
  await writeFile(file, text)
  return file
}
const load = async (text: string, env: string[] = []) =>
  loadApiKeys({ API_KEYS: env, API_KEYS_FILE: await keysFile(text) } as unknown as Config)

describe('API_KEYS_FILE: keys, and the payees each may settle upto for', () => {
  it('plain keys, keys with upto payees (lower-cased), comments and blank lines; API_KEYS first', async () => {
    const loaded = await load(`# operators\nplain-key\n\nkey-a upto=${PAYEE},${OTHER}\n`, ['env-key'])
    expect(loaded.keys).to.deep.equal(['env-key', 'plain-key', 'key-a'])
    expect([...loaded.uptoPayees]).to.deep.equal([['key-a', [PAYEE.toLowerCase(), OTHER]]])
  })

  it('a bad option or address refuses the start naming the line, never the key', async () => {
    for (const [line, why] of [
      ['secret-key upto=0x12', '"0x12" is not an address'],
      [`secret-key payees=${PAYEE}`, 'unknown option "payees"'],
    ] as const) {
      const refused = await load(`first\n${line}\n`).then(
        () => expect.fail('loaded'),
        (e: Error) => e.message,
      )
      expect(refused).to.include(`line 2: ${why}`)
      expect(refused).not.to.include('secret-key')
    }
  })
})
