import type { EvmAddress as Address, Eip712Domain, Hex, PaymentTrial } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { encodeDeployData, encodeFunctionData, erc20Abi, parseTransaction } from 'viem'
import { makeChainRpc, type ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { startLocalChain, type LocalAccount, type LocalChain } from '../src/testing/local-chain.js'
import { readQuantity } from '../src/evm/rpc/rpc-failure.js'
import { makeRpcTokenReader, type RpcTokenReader } from '../src/evm/token/rpc-token-reader.js'
import { makeRpcTransferSubmitter } from '../src/evm/submission/rpc-transfer-submitter.js'
import { gasBurningWalletBytecode } from '../test-fixtures/generated/gas-burning-wallet.js'
import { gasTrapWalletAbi, gasTrapWalletBytecode } from '../test-fixtures/generated/gas-trap-wallet.js'
import { balanceOf, mined, unlockedAccounts } from './demo-token-calls.js'
import { authorizationFrom, right, signedBy } from './fixtures.js'
import { TOKENS, type TokenUnderTest } from './tokens-under-test.js'

for (const [name, deploy] of TOKENS) {
  describe(`rule 10: trials of the settle's own transaction on ${name} (anvil)`, () => {
    let chain: LocalChain
    let rpc: ChainRpc
    let token: TokenUnderTest
    let reader: RpcTokenReader
    let domain: Eip712Domain
    const payee: Address = '0x00000000000000000000000000000000000000dd'

    before(async () => {
      chain = await startLocalChain({ payers: 3 })
      rpc = makeChainRpc({ rpcUrl: chain.rpcUrl })
      token = await deploy(rpc, chain)
      for (const payer of chain.payers) await token.mint(payer.address, 1_000_000_000n)
      reader = makeRpcTokenReader(rpc, token.address, { facilitator: chain.facilitator.address })
      domain = await right(reader.domain)
    })
    after(async () => {
      rpc?.close()
      await chain?.stop()
    })

    const signed = (payer: LocalAccount, to: Address = payee, value = 10_000n) =>
      signedBy(payer, domain, authorizationFrom(payer, to, value))
    const trial = async (
      payment: { authorization: Parameters<RpcTokenReader['trialPayment']>[0]; signature: Hex },
      on = reader,
    ): Promise<PaymentTrial> => right(on.trialPayment(payment.authorization, payment.signature))
    const facilitatorNonce = () => readQuantity(rpc, 'eth_getTransactionCount', [chain.facilitator.address, 'pending'])

    it('a valid payment would succeed; the transfer sent with the gas limit taken from it is mined, within that limit', async () => {
      const payment = await signed(chain.payers[0]!)
      const result = await trial(payment)
      expect(result).to.deep.include({
        balance: await balanceOf(rpc, token.address, chain.payers[0]!.address),
        authorizationUsed: false,
      })
      if (result.transfer._tag !== 'WouldSucceed')
        throw new Error(`expected WouldSucceed, got ${JSON.stringify(result.transfer)}`)
      expect(Number(result.transfer.gasUsed)).to.be.within(30_000, 200_000)
      const submitter = makeRpcTransferSubmitter({
        rpc,
        token: token.address,
        privateKey: chain.facilitator.privateKey,
      })
      const prepared = await right(submitter.prepare(payment.authorization, payment.signature, result.transfer.gasUsed))
      const outcome = await right(submitter.send(prepared, 10_000))
      if (outcome._tag !== 'Mined') throw new Error('expected the transfer mined')
      expect(outcome.receipt.succeeded).to.equal(true)
      const gasLimit = parseTransaction(prepared.raw).gas!
      expect(Number(outcome.receipt.gasUsed)).to.be.within(Number(gasLimit) / 1.5, Number(gasLimit))
    })

    it('a payee swept to zero between the trial and the block: the transfer sent with the gas from the trial still has enough', async () => {
      const seller: Address = '0x00000000000000000000000000000000000005e1'
      await token.mint(seller, 1n)
      const payment = await signed(chain.payers[0]!, seller, 50_000n)
      const result = await trial(payment)
      if (result.transfer._tag !== 'WouldSucceed') throw new Error('expected WouldSucceed')
      // The seller moves everything out before our transaction is mined: its balance slot goes back to zero.
      await rpc.read('anvil_setBalance', [seller, '0xde0b6b3a7640000'])
      await mined(rpc, {
        from: seller,
        to: token.address,
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [payee, 1n] }),
      })
      const submitter = makeRpcTransferSubmitter({
        rpc,
        token: token.address,
        privateKey: chain.facilitator.privateKey,
      })
      const prepared = await right(submitter.prepare(payment.authorization, payment.signature, result.transfer.gasUsed))
      const outcome = await right(submitter.send(prepared, 10_000))
      if (outcome._tag !== 'Mined') throw new Error('expected the transfer mined')
      expect(
        outcome.receipt.succeeded,
        `${outcome.receipt.gasUsed} gas of ${parseTransaction(prepared.raw).gas}`,
      ).to.equal(true)
    })

    it('each trial reads whether the payer has code: an EOA none, an EIP-7702-delegated EOA its designator', async () => {
      const payer = chain.payers[2]!
      expect((await trial(await signed(payer))).payerHasCode).to.equal(false)
      await rpc.read('anvil_setCode', [payer.address, `0xef0100${token.address.slice(2)}`])
      try {
        expect((await trial(await signed(payer))).payerHasCode).to.equal(true)
      } finally {
        await rpc.read('anvil_setCode', [payer.address, '0x'])
      }
    })

    it('trials change nothing and never see each other: the same authorization twice in one call, both would succeed', async () => {
      const payment = await signed(chain.payers[1]!)
      const before = await balanceOf(rpc, token.address, chain.payers[1]!.address)
      const [a, b] = await Promise.all([trial(payment), trial(payment)])
      expect([a!.transfer._tag, b!.transfer._tag]).to.deep.equal(['WouldSucceed', 'WouldSucceed'])
      expect(await balanceOf(rpc, token.address, chain.payers[1]!.address)).to.equal(before)
      expect((await trial(payment)).authorizationUsed).to.equal(false)
    })

    it("one bad payment among many in one tick fails alone (more than one call's worth: 30 trials)", async () => {
      const payments = await Promise.all(
        Array.from({ length: 30 }, (_, i) => signed(chain.payers[i % 3]!, payee, BigInt(i + 1))),
      )
      const forged = { ...payments[13]!, signature: (await signed(chain.payers[2]!)).signature }
      const results = await Promise.all(payments.map((p, i) => trial(i === 13 ? forged : p)))
      expect(results.map((r) => r.transfer._tag)).to.deep.equal(
        results.map((_, i) => (i === 13 ? 'WouldRevert' : 'WouldSucceed')),
      )
      const bad = results[13]!.transfer
      expect(bad._tag === 'WouldRevert' && bad.reason).to.match(/invalid signature/)
    })

    it("a blacklisted payer, a blacklisted payee, a paused token: each named by the token's flags, nothing sent", async () => {
      const nonceBefore = await facilitatorNonce()
      const payer = chain.payers[2]!
      await token.blacklist(payer.address)
      const blacklistedPayer = (await trial(await signed(payer))).transfer
      await token.unBlacklist(payer.address)
      expect(blacklistedPayer).to.deep.include({
        _tag: 'WouldRevert',
        paused: false,
        payerBlacklisted: true,
        payeeBlacklisted: false,
      })
      expect(blacklistedPayer._tag === 'WouldRevert' && blacklistedPayer.reason).to.equal(
        'Blacklistable: account is blacklisted',
      )

      const shunned: Address = '0x00000000000000000000000000000000000000bd'
      await token.blacklist(shunned)
      expect((await trial(await signed(payer, shunned))).transfer).to.deep.include({
        _tag: 'WouldRevert',
        payerBlacklisted: false,
        payeeBlacklisted: true,
      })

      await token.pause()
      try {
        expect((await trial(await signed(payer))).transfer).to.deep.include({
          _tag: 'WouldRevert',
          paused: true,
          reason: 'Pausable: paused',
        })
      } finally {
        await token.unpause()
      }
      expect((await trial(await signed(payer))).transfer._tag).to.equal('WouldSucceed')
      expect(await facilitatorNonce()).to.equal(nonceBefore)
    })

    it('a payer contract that burns every unit of gas in isValidSignature fails its own trial only, the others of its call succeed', async () => {
      const [deployer] = await unlockedAccounts(rpc)
      const receipt = await mined(rpc, { from: deployer!, data: gasBurningWalletBytecode })
      const wallet = (receipt as { contractAddress: Address }).contractAddress.toLowerCase() as Address
      await token.mint(wallet, 1_000_000n)
      const burner = { address: wallet, privateKey: chain.payers[0]!.privateKey }
      const payments = await Promise.all([signed(chain.payers[0]!), signed(burner), signed(chain.payers[1]!)])
      const results = await Promise.all(payments.map((p) => trial(p)))
      expect(results.map((r) => r.transfer._tag)).to.deep.equal(['WouldSucceed', 'WouldRevert', 'WouldSucceed'])
    })

    const latestTime = async (): Promise<bigint> =>
      BigInt(((await rpc.read('eth_getBlockByNumber', ['latest', false])) as { timestamp: Hex }).timestamp)
    const gasBurner = async (): Promise<LocalAccount> => {
      const [deployer] = await unlockedAccounts(rpc)
      const receipt = await mined(rpc, { from: deployer!, data: gasBurningWalletBytecode })
      const wallet = (receipt as { contractAddress: Address }).contractAddress.toLowerCase() as Address
      await token.mint(wallet, 1_000_000n)
      return { address: wallet, privateKey: chain.payers[0]!.privateKey }
    }

    it('an authorization valid from the next block (validAfter = the latest block time) is tried at that block: it would succeed, a refusing payer wallet is refused before any gas', async () => {
      const nonceBefore = await facilitatorNonce()
      const payer = chain.payers[0]!
      const next = await signedBy(payer, domain, {
        ...authorizationFrom(payer, payee, 1n),
        validAfter: await latestTime(),
      })
      const tried = (await trial(next)).transfer
      expect(
        tried._tag,
        JSON.stringify(tried, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v)),
      ).to.equal('WouldSucceed')
      const burner = await gasBurner()
      const refusing = await signedBy(burner, domain, {
        ...authorizationFrom(burner, payee, 1n),
        validAfter: await latestTime(),
      })
      expect((await trial(refusing)).transfer._tag).to.equal('WouldRevert')
      expect(await facilitatorNonce()).to.equal(nonceBefore)
    })

    it("an authorization valid only later than the next block is not tried; what the token's flags explain is refused whatever the time", async () => {
      const time = await latestTime()
      const payer = chain.payers[0]!
      const payment = await signedBy(payer, domain, {
        ...authorizationFrom(payer, payee, 1n),
        validAfter: time + 3_600n,
      })
      expect((await trial(payment)).transfer._tag).to.equal('NotTried')
      // What the token's flags explain is a refusal whatever the block's time: a blacklisted payee cannot hide behind
      // it.
      const shunned: Address = '0x00000000000000000000000000000000000000be'
      await token.blacklist(shunned)
      const blocked = await signedBy(payer, domain, {
        ...authorizationFrom(payer, shunned, 1n),
        validAfter: time + 3_600n,
      })
      expect((await trial(blocked)).transfer).to.deep.include({ _tag: 'WouldRevert', payeeBlacklisted: true })
    })

    for (const [kind, refuse] of [
      ['refuses', true],
      ['ignores', false],
    ] as const) {
      it(`a node that ${kind} eth_call's block overrides: a payer without code valid from the next block is left untried, a payer with code is refused (never sent blind)`, async () => {
        let overridden = 0
        const old: ChainRpc = {
          ...rpc,
          read: (method, params) => {
            if (method === 'eth_call' && params !== undefined && params.length > 2) {
              overridden++
              if (refuse)
                return Promise.reject(
                  Object.assign(new Error('invalid params: too many arguments, want at most 3'), {
                    name: 'RpcRequestError',
                    code: -32602,
                  }),
                )
              return rpc.read(method, params.slice(0, 2))
            }
            return rpc.read(method, params)
          },
        }
        const reader = makeRpcTokenReader(old, token.address, { facilitator: chain.facilitator.address })
        const payer = chain.payers[0]!
        const eoa = await signedBy(payer, domain, {
          ...authorizationFrom(payer, payee, 1n),
          validAfter: (await latestTime()) + 1n,
        })
        expect((await trial(eoa, reader)).transfer._tag).to.equal('NotTried')
        const burner = await gasBurner()
        const contract = await signedBy(burner, domain, {
          ...authorizationFrom(burner, payee, 1n),
          validAfter: (await latestTime()) + 1n,
        })
        const refused = (await trial(contract, reader)).transfer
        expect(refused._tag).to.equal('WouldRevert')
        expect(refused._tag === 'WouldRevert' && refused.reason).to.match(/has code.*cannot be tried/)
        expect(overridden, 'block overrides asked for').to.be.greaterThan(0)
        // A payment valid at the latest block needs no override: tried as before.
        expect((await trial(await signed(payer), reader)).transfer._tag).to.equal('WouldSucceed')
      })
    }

    it("a node's rate limit is no verdict: the trial fails as the chain unavailable (a 503), and the next one is tried as before", async () => {
      let limited: ReadonlySet<string> = new Set()
      let deploylessCalls = 0
      const busy: ChainRpc = {
        ...rpc,
        read: (method, params) => {
          if (limited.has(method))
            return Promise.reject(
              Object.assign(new Error('rate limit exceeded'), { name: 'RpcRequestError', code: -32005 }),
            )
          if (method === 'eth_call' && (params as [{ to?: string }])[0].to === undefined) deploylessCalls++
          return rpc.read(method, params)
        },
      }
      const cases = [
        [true, ['eth_call']],
        [false, ['eth_estimateGas']],
      ] as const
      for (const [deploylessReads, methods] of cases) {
        limited = new Set(methods)
        const reader = makeRpcTokenReader(busy, token.address, {
          facilitator: chain.facilitator.address,
          deploylessReads,
        })
        const payment = await signed(chain.payers[1]!)
        const refused = await reader.trialPayment(payment.authorization, payment.signature)()
        expect(refused._tag === 'Left' && refused.left._tag, `${methods[0]} limited`).to.equal('ChainUnavailable')
        limited = new Set()
        const before = deploylessCalls
        expect((await trial(payment, reader)).transfer._tag).to.equal('WouldSucceed')
        expect(deploylessCalls - before, 'init code still used after a rate limit').to.equal(deploylessReads ? 1 : 0)
      }
    })

    it('without init code, a wallet that needs more than the gas cap (400 000 of 300 000) is refused as the deployless trial refuses it: the estimate runs with the cap', async () => {
      const [deployer] = await unlockedAccounts(rpc)
      const owner = chain.payers[2]!
      const data = encodeDeployData({
        abi: gasTrapWalletAbi,
        bytecode: gasTrapWalletBytecode,
        args: [owner.address, 400_000n, false],
      })
      const wallet = (
        (await mined(rpc, { from: deployer!, data })) as { contractAddress: Address }
      ).contractAddress.toLowerCase() as Address
      await token.mint(wallet, 1_000_000n)
      const payment = await signed({ address: wallet, privateKey: owner.privateKey })
      const options = { facilitator: chain.facilitator.address, trialGasCap: 300_000n }
      const deployless = (await trial(payment, makeRpcTokenReader(rpc, token.address, options))).transfer
      const plain = (
        await trial(payment, makeRpcTokenReader(rpc, token.address, { ...options, deploylessReads: false }))
      ).transfer
      expect(deployless._tag).to.equal('WouldRevert')
      expect(plain._tag).to.equal('WouldRevert')
      // Judged with more gas (the default cap), it succeeds: a lone send never gives it less than that trial measured.
      const measured = (
        await trial(
          payment,
          makeRpcTokenReader(rpc, token.address, { facilitator: chain.facilitator.address, deploylessReads: false }),
        )
      ).transfer
      if (measured._tag !== 'WouldSucceed') throw new Error(`expected WouldSucceed, got ${JSON.stringify(measured)}`)
      const submitter = makeRpcTransferSubmitter({
        rpc,
        token: token.address,
        privateKey: chain.facilitator.privateKey,
      })
      const prepared = await right(
        submitter.prepare(payment.authorization, payment.signature, measured.gasUsed, { trialGasCap: 300_000n }),
      )
      const outcome = await right(submitter.send(prepared, 10_000))
      if (outcome._tag !== 'Mined') throw new Error('expected the transfer mined')
      expect(outcome.receipt.succeeded).to.equal(true)
    })

    it("without init code, the estimate runs at the latest block, as its reads: a twin of the payment in the node's pool does not refuse it", async () => {
      const plain = makeRpcTokenReader(rpc, token.address, {
        facilitator: chain.facilitator.address,
        deploylessReads: false,
      })
      const payment = await signed(chain.payers[0]!)
      const submitter = makeRpcTransferSubmitter({
        rpc,
        token: token.address,
        privateKey: chain.facilitator.privateKey,
      })
      await rpc.read('evm_setAutomine', [false])
      try {
        const prepared = await right(submitter.prepare(payment.authorization, payment.signature))
        await rpc.write('eth_sendRawTransaction', [prepared.raw])
        // At `pending` the authorization is spent by the pooled twin; at `latest`, where the reads are, it is not.
        expect((await trial(payment, plain)).transfer._tag).to.equal('WouldSucceed')
      } finally {
        await rpc.read('evm_setAutomine', [true])
        await rpc.read('evm_mine', [])
      }
    })

    it('without init code (eth_estimateGas of the call, two reads): the same verdicts', async () => {
      const plain = makeRpcTokenReader(rpc, token.address, {
        facilitator: chain.facilitator.address,
        deploylessReads: false,
      })
      const payer = chain.payers[1]!
      expect((await trial(await signed(payer), plain)).transfer._tag).to.equal('WouldSucceed')
      await token.blacklist(payer.address)
      try {
        const refused = (await trial(await signed(payer), plain)).transfer
        expect(refused).to.deep.include({ _tag: 'WouldRevert', payerBlacklisted: true })
        expect(refused._tag === 'WouldRevert' && refused.reason).to.match(/Blacklistable: account is blacklisted/)
      } finally {
        await token.unBlacklist(payer.address)
      }
      const forged = { ...(await signed(payer)), signature: (await signed(chain.payers[0]!)).signature }
      const bad = (await trial(forged, plain)).transfer
      expect(bad._tag === 'WouldRevert' && bad.reason).to.match(/invalid signature/)
    })
  })
}
