import type { EvmAddress as Address, Authorization, Hex, PaymentTrial } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { encodeDeployData, numberToHex, parseTransaction } from 'viem'
import { makeChainRpc, type ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { makePermit2Reader } from '../src/evm/permit2/permit2-reader.js'
import { makeRpcTransferSubmitter, type RpcTransferSubmitter } from '../src/evm/submission/rpc-transfer-submitter.js'
import { transferCall, type TransferCall } from '../src/evm/token/transfer-call.js'
import { calldataGas } from '../src/evm/submission/transfer-gas-limit.js'
import { gasTrapWalletAbi, gasTrapWalletBytecode } from '../test-fixtures/generated/gas-trap-wallet.js'
import { mined } from './demo-token-calls.js'
import { right } from './fixtures.js'
import { permit2Chain } from './permit2-chain.js'
import { approvePermit2, officialPermit2Payload, permit2AuthorizationOf, transfersIn } from './permit2-payments.js'

interface Request {
  readonly method: string
  readonly params: ReadonlyArray<unknown>
}

/** A reader's transport that records each JSON-RPC request it reads through, and the HTTP requests they took. */
const recording = (rpcUrl: string) => {
  const seen: Request[] = []
  let httpRequests = 0
  const rpc = makeChainRpc({ rpcUrl, onHttpRequest: () => httpRequests++ })
  const read: ChainRpc['read'] = (method, params) => {
    seen.push({ method, params: params ?? [] })
    return rpc.read(method, params)
  }
  return { read, seen, httpRequests: () => httpRequests, close: () => rpc.close() }
}

const succeeded = (trial: PaymentTrial) => {
  if (trial.transfer._tag !== 'WouldSucceed') throw new Error(`trial: ${JSON.stringify(trial.transfer, bigints)}`)
  return trial.transfer
}
const bigints = (_: string, v: unknown) => (typeof v === 'bigint' ? String(v) : v)

// The Permit2 trial (docs/ARCHITECTURE.md §3): one execution of the very proxy call the settle sends, at the latest
// block, beside the reads, in one round trip; the gas limit set from it always suffices for the mined transaction.
describe('Permit2 trial: one eth_call of the settle’s proxy call (anvil)', () => {
  const t = permit2Chain(10_000_000n)
  const payTo: Address = '0x00000000000000000000000000000000000000de'
  const callOf = (authorization: Authorization, signature: Hex): TransferCall =>
    transferCall(authorization, signature, {
      token: t.dusdt.address,
      multicall3: t.dusdt.address,
      allowedFactories: [],
    })
  let submitter: RpcTransferSubmitter
  before(() => {
    submitter = makeRpcTransferSubmitter({
      rpc: t.rpc,
      token: t.dusdt.address,
      privateKey: t.chain.facilitator.privateKey,
    })
  })

  /** The payment tried through a recording transport: its trial, the requests, and the proxy call among them. */
  const tried = async (authorization: Authorization, signature: Hex, from: Address) => {
    const transport = recording(t.chain.rpcUrl)
    try {
      const reader = makePermit2Reader({ rpc: transport, token: t.dusdt.address, permit2: t.suite.permit2, from })
      const call = callOf(authorization, signature)
      const trial = await reader.trial(authorization, call)
      const executions = transport.seen.filter((r) => r.method !== 'eth_call' || fieldTo(r) === call.to)
      return { trial, call, seen: transport.seen, executions, httpRequests: transport.httpRequests() }
    } finally {
      transport.close()
    }
  }
  const fieldTo = (r: Request) => String((r.params[0] as { to?: string }).to ?? '').toLowerCase()

  /** Sends the payment as the settle would, with the limit from its trial; the limit and the mined receipt. */
  const settled = async (authorization: Authorization, signature: Hex, trial: PaymentTrial) => {
    const transfer = succeeded(trial)
    const contractPayer = trial.payerHasCode === true ? { trialGasCap: transfer.gasCap } : undefined
    const prepared = await right(submitter.prepare(authorization, signature, transfer.gasUsed, contractPayer))
    const limit = parseTransaction(prepared.raw).gas!
    const outcome = await right(submitter.send(prepared, 20_000))
    if (outcome._tag !== 'Mined') throw new Error('not mined')
    const transfers = transfersIn(await t.rpc.read('eth_getTransactionReceipt', [prepared.txHash]), t.dusdt.address)
    return { limit, receipt: outcome.receipt, transfers }
  }

  it('exact: one eth_call of the proxy call from the facilitator at the latest block, with the reads in one round trip (no estimate); the limit from it covers the mined transaction', async () => {
    const { chain, suite, dusdt } = t
    const signed = await officialPermit2Payload('exact', chain.payers[0]!, suite.chainId, {
      token: dusdt.address,
      amount: 2_000n,
      payTo,
    })
    const authorization = permit2AuthorizationOf('exact', signed)
    const { trial, call, seen, executions, httpRequests } = await tried(
      authorization,
      signed.signature,
      chain.facilitator.address,
    )
    const transfer = succeeded(trial)
    expect(httpRequests).to.equal(1)
    expect(seen.map((r) => r.method).sort()).to.deep.equal([
      'eth_call',
      'eth_call',
      'eth_call',
      'eth_call',
      'eth_getCode',
    ])
    expect(executions.map((r) => r.method).sort()).to.deep.equal(['eth_call', 'eth_getCode'])
    const proxyCall = executions.find((r) => r.method === 'eth_call')!
    expect(proxyCall.params[1]).to.equal('latest')
    expect(proxyCall.params[0]).to.deep.equal({
      from: chain.facilitator.address,
      to: call.to,
      data: call.data,
      gas: numberToHex(calldataGas(call.data).intrinsic + transfer.gasCap!),
    })

    const { limit, receipt, transfers } = await settled(authorization, signed.signature, trial)
    expect(receipt.succeeded, receipt.revertReason).to.equal(true)
    expect(transfers).to.deep.equal([{ from: authorization.from, to: payTo, value: 2_000n }])
    expect(limit >= calldataGas(call.data).intrinsic + transfer.gasCap!).to.equal(true)
    expect(receipt.gasUsed < limit).to.equal(true)
    // An EOA's limit stays near what such a call uses (≈ 100 000), not the most a payment may have.
    expect(limit < 400_000n, String(limit)).to.equal(true)

    // Tried again: Permit2 refuses the used nonce before any call the payer controls, so it is not run with more gas.
    const again = await tried(authorization, signed.signature, chain.facilitator.address)
    expect(again.trial.transfer).to.deep.include({ _tag: 'WouldRevert' })
    expect(again.trial.transfer._tag === 'WouldRevert' && again.trial.transfer.reason).to.match(/^InvalidNonce\(\)/)
    expect(again.executions.map((r) => r.method).sort()).to.deep.equal(['eth_call', 'eth_getCode'])
  })

  it('upto: the one eth_call runs from the witness facilitator, whatever the reader’s own sender, and the witness key’s transaction with its limit pays the amount', async () => {
    const { chain, suite, dusdt } = t
    const signed = await officialPermit2Payload('upto', chain.payers[1]!, suite.chainId, {
      token: dusdt.address,
      amount: 9_000n,
      payTo,
      facilitator: chain.facilitator.address,
    })
    const authorization = permit2AuthorizationOf('upto', signed, 4_000n)
    const { trial, call, executions } = await tried(authorization, signed.signature, chain.payers[0]!.address)
    expect(executions.map((r) => r.method).sort()).to.deep.equal(['eth_call', 'eth_getCode'])
    expect(executions.find((r) => r.method === 'eth_call')!.params[0]).to.deep.include({
      from: chain.facilitator.address,
      to: call.to,
      data: call.data,
    })
    const { receipt, transfers } = await settled(authorization, signed.signature, trial)
    expect(receipt.succeeded, receipt.revertReason).to.equal(true)
    expect(transfers).to.deep.equal([{ from: authorization.from, to: payTo, value: 4_000n }])
  })

  it('a wallet payer (ERC-1271) that burns every unit when given under 300 000 gas: its trial gives it the whole cap, and its lone transaction at least as much: mined, paid', async () => {
    const { chain, rpc, suite, dusdt } = t
    const owner = chain.payers[0]!
    const [deployer] = (await rpc.read('eth_accounts', [])) as Address[]
    const data = encodeDeployData({
      abi: gasTrapWalletAbi,
      bytecode: gasTrapWalletBytecode,
      args: [owner.address, 300_000n, false],
    })
    const deployed = (await mined(rpc, { from: deployer!, data })) as { contractAddress: Address }
    const wallet = deployed.contractAddress.toLowerCase() as Address
    await dusdt.mint(wallet, 100_000n)
    await rpc.read('anvil_setBalance', [wallet, numberToHex(10n ** 18n)])
    await approvePermit2(rpc, suite, dusdt.address, wallet)
    const signed = await officialPermit2Payload('exact', owner, suite.chainId, {
      token: dusdt.address,
      amount: 3_000n,
      payTo,
    })
    const authorization = { ...permit2AuthorizationOf('exact', signed), from: wallet }
    const { trial } = await tried(authorization, signed.signature, chain.facilitator.address)
    expect(trial.payerHasCode).to.equal(true)
    expect(succeeded(trial).gasCap).to.equal(1_000_000n)
    const { limit, receipt, transfers } = await settled(authorization, signed.signature, trial)
    expect(limit >= 1_000_000n).to.equal(true)
    expect(receipt.succeeded, receipt.revertReason).to.equal(true)
    expect(transfers).to.deep.equal([{ from: wallet, to: payTo, value: 3_000n }])
  })
})
