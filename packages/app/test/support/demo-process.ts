import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { stripVTControlCharacters } from 'node:util'

const DEMO = fileURLToPath(new URL('../../src/tools/demo.js', import.meta.url))

/** `npm run demo -- <flags>` against the dev session in `dataDir`: its exit code and its output, plain. */
export const runDemo = async (dataDir: string, flags: string[]): Promise<{ code: number | null; output: string }> => {
  // Under lerna FORCE_COLOR is set, and colours would split what the assertions read.
  const demo = spawn(process.execPath, [DEMO, ...flags], {
    env: { ...process.env, DATA_DIR: dataDir, FORCE_COLOR: '0', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const plain = (chunk: Buffer) => stripVTControlCharacters(chunk.toString())
  demo.stdout.on('data', (chunk: Buffer) => (output += plain(chunk)))
  demo.stderr.on('data', (chunk: Buffer) => (output += plain(chunk)))
  const code = await new Promise<number | null>((resolve) => demo.once('exit', resolve))
  return { code, output }
}
