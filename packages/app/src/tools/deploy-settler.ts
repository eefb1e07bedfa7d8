// `npm run deploy-settler`: deploys the batch settler (adapters-chain contracts/BatchSettler.sol) for an operator, from
// the same environment the service reads: RPC_URL, ASSET_ADDRESS and the facilitator key(s), FACILITATOR_PRIVATE_KEY
// and/or FACILITATOR_PRIVATE_KEYS (comma-separated). The first key deploys and owns it; every key may call `settle`.
// Progress goes to stdout, errors to stderr (exit 1); the last line is `SETTLER_ADDRESS=0x…` for scripts to read.
import {
  accountOfKey,
  deploySettler,
  SettlerDeploymentError,
  SETTLER_ITEM_GAS_LIMIT,
} from '@x402-facilitator/adapters-chain'
import type { Hex } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import { SETTINGS } from '../config.js'

const fail = (line: string): never => {
  console.error(`deploy-settler: ${line}`)
  process.exit(1)
}

/** As `loadConfig` reads a variable: empty is unset; a bad value is named, a key's value never echoed. */
const read = (name: string): string | undefined => {
  const raw = process.env[name]?.trim()
  return raw === '' ? undefined : raw
}
const decoded = <A>(
  name: string,
  codec: { decode: (u: unknown) => E.Either<unknown, A>; name: string },
  raw: string,
): A => {
  const result = codec.decode(raw)
  return E.isRight(result)
    ? result.right
    : fail(`${name} must be ${codec.name}${name.includes('KEY') ? '' : ` (got "${raw}")`}`)
}
const required = (name: string, what: string): string => read(name) ?? fail(`${name} is required: ${what}`)

const rpcUrl = decoded(
  'RPC_URL',
  SETTINGS.RPC_URL.codec,
  required('RPC_URL', 'the JSON-RPC endpoint of the chain to deploy on'),
)
const token = decoded(
  'ASSET_ADDRESS',
  SETTINGS.ASSET_ADDRESS.codec,
  required('ASSET_ADDRESS', 'the EIP-3009 token the settler will settle'),
)
const single = read('FACILITATOR_PRIVATE_KEY')
const pool =
  read('FACILITATOR_PRIVATE_KEYS')
    ?.split(',')
    .map((key) => key.trim())
    .filter((key) => key !== '') ?? []
const keys: Hex[] = [
  ...(single === undefined ? [] : [decoded('FACILITATOR_PRIVATE_KEY', SETTINGS.FACILITATOR_PRIVATE_KEY.codec, single)]),
  ...pool.map((key, i) =>
    decoded(`FACILITATOR_PRIVATE_KEYS (item ${i + 1})`, SETTINGS.FACILITATOR_PRIVATE_KEY.codec, key),
  ),
]
const [deployerKey] = keys
if (deployerKey === undefined)
  fail('FACILITATOR_PRIVATE_KEY or FACILITATOR_PRIVATE_KEYS is required (the keys that will call settle)')
const settlers = [...new Set(keys.map(accountOfKey))]
const itemGas = read('SETTLER_ITEM_GAS_LIMIT')
const itemGasLimit =
  itemGas === undefined
    ? SETTLER_ITEM_GAS_LIMIT
    : /^[0-9]+$/.test(itemGas) && BigInt(itemGas) >= 50_000n && BigInt(itemGas) <= 5_000_000n
      ? BigInt(itemGas)
      : fail(`SETTLER_ITEM_GAS_LIMIT must be an integer from 50000 to 5000000 (got "${itemGas}")`)

const deployment = await deploySettler({
  rpcUrl,
  token,
  deployerKey: deployerKey!,
  settlers,
  itemGasLimit,
  progress: (line) => console.log(line),
}).catch((error: Error) =>
  fail(error instanceof SettlerDeploymentError ? error.message : `failed: ${error.message.split('\n')[0]}`),
)
console.log(
  `owner ${deployment.owner}; settlers ${deployment.settlers.join(', ')}; item gas limit ${deployment.itemGasLimit}`,
)
console.log(`SETTLER_ADDRESS=${deployment.address}`)
