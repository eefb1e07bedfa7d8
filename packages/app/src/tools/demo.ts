import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { signedPaymentBody } from './demo-payment.js'
import { payByPermit2, payUpto } from './demo-permit2.js'
import { demoToken, fail, freshAddress, post, readDevSession } from './demo-session.js'
import { payOnSolana } from './demo-solana.js'

// `npm run demo`: pays 1.0 token from a demo payer to a fresh address through a running dev server.
// `npm run demo -- --smart-wallet`: from the deployed demo smart wallet (ERC-1271, its owner key signs).
// `npm run demo -- --counterfactual`: from the demo smart wallet not deployed yet (an ERC-6492 signature; the settle
// deploys it through the demo factory, which dev mode allows).
// `npm run demo -- --network <name> [--token <symbol>]`: on another network dev mode started (the demo payers hold
// every demo token on each); the smart wallets are on the first network.
// `npm run demo -- --permit2`: DUSDT through Permit2 `exact`, from the payer who approved Permit2, then from one who
// did not (an EIP-2612 permit the facilitator sends in the same transaction: eip2612GasSponsoring).
// `npm run demo -- --upto`: DUSDT through `upto`: a maximum signed, less settled; then one settled with 0.
// `npm run demo -- --network solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1`: 1.0 USDC on dev mode's local Solana chain
// (served under devnet's id), built by the official @x402/svm client.

const session = await readDevSession()
const args = process.argv.slice(2)
const wallet = args.includes('--counterfactual')
  ? session.smartWallets.counterfactual
  : args.includes('--smart-wallet')
    ? session.smartWallets.deployed
    : undefined
const valueOf = (flag: string): string | undefined => {
  const at = args.indexOf(flag)
  return at === -1 ? undefined : (args[at + 1] ?? fail(`${flag} needs a value`))
}
const permit2 = args.includes('--permit2') ? 'exact' : args.includes('--upto') ? 'upto' : undefined
if (permit2 && wallet) fail('--permit2 and --upto pay from the demo payers, not from a smart wallet')
const networkName = valueOf('--network') ?? session.network
if (networkName.startsWith('solana:')) {
  const { solana } = session
  if (solana === undefined || solana.network !== networkName)
    fail(`no network ${networkName} in this dev session (its Solana network: ${solana?.network ?? 'none'})`)
  await payOnSolana(session, solana!)
  process.exit(0)
}
const network =
  session.networks.find((n) => n.name === networkName) ??
  fail(`no network ${networkName} in this dev session (it serves ${session.networks.map((n) => n.name).join(', ')})`)
if (wallet && network.name !== session.network) fail(`the demo smart wallets are on ${session.network} only`)
// Permit2 payments default to DUSDT, the token dev mode lets be paid by Permit2 only.
const symbol = valueOf('--token') ?? (permit2 ? 'DUSDT' : undefined)
const chosen =
  symbol === undefined
    ? network.tokens[0]!
    : (network.tokens.find((token) => token.symbol === symbol) ??
      fail(
        `no token ${symbol} on ${network.name} (it serves ${network.tokens.map((token) => token.symbol).join(', ')})`,
      ))

if (permit2 === 'exact') await payByPermit2(session, network, chosen)
else if (permit2 === 'upto') await payUpto(session, network, chosen)
else {
  const payer = wallet ? { address: wallet.address, privateKey: wallet.ownerPrivateKey } : session.payers[0]!
  const payTo: Address = freshAddress()
  const token = await demoToken(network, chosen)
  if (wallet)
    console.log(
      `paying from the demo smart wallet ${wallet.address}` +
        (wallet === session.smartWallets.counterfactual ? ' (ERC-6492: deployed by the settle if it is not yet)' : ''),
    )
  const body = await signedPaymentBody({
    payerKey: payer.privateKey,
    payer: payer.address,
    payTo,
    value: 10n ** BigInt(chosen.decimals),
    network: network.name,
    domain: token.domain,
    // The counterfactual wallet's signature carries its factory call (ERC-6492); once deployed, it is still accepted.
    erc6492: wallet === session.smartWallets.counterfactual ? wallet : undefined,
  })
  await token.balances(payer.address, payTo)
  await post(session, 'verify', body)
  await post(session, 'settle', body)
  await token.balances(payer.address, payTo)
}
