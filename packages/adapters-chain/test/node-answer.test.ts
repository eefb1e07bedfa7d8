import { createServer as createHttpServer } from 'node:http'
import { CanonicalBytes32, UintFromString } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { holdsCode } from '../src/evm/account-code.js'
import { makeChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { decodeNodeReceipt } from '../src/evm/submission/node-receipt.js'
import { classifyRpcError, decodeAnswer, fieldOf, UndecodableAnswer } from '../src/evm/rpc/rpc-failure.js'

describe('node answers', () => {
  it('decodes what JSON-RPC allows: quantities, hashes (in lower case), fields of objects', () => {
    expect(decodeAnswer(UintFromString, 'a nonce', '0x1f')).to.equal(31n)
    expect(decodeAnswer(CanonicalBytes32, 'a hash', `0x${'AB'.repeat(32)}`)).to.equal(`0x${'ab'.repeat(32)}`)
    expect(fieldOf({ status: '0x1' }, 'status')).to.equal('0x1')
    expect(fieldOf(null, 'status')).to.equal(undefined)
  })

  it('names what a garbled answer should have been, and reads as a transport failure (the node may have acted), not a refusal', () => {
    let thrown: unknown
    try {
      decodeAnswer(UintFromString, 'the answer to eth_getTransactionCount', null)
    } catch (error) {
      thrown = error
    }
    expect(thrown).to.be.instanceOf(UndecodableAnswer)
    expect(thrown).to.have.property(
      'message',
      'the answer to eth_getTransactionCount: expected a non-negative integer string, got null',
    )
    expect(classifyRpcError(thrown).kind).to.equal('transport')
  })
})

describe('code at an address (one reading of eth_getCode for every check)', () => {
  it('is a hex answer of at least one byte; 0x and 0x0 are none; an answer that is no hex string is told apart', () => {
    expect(holdsCode('0x6080')).to.equal(true)
    expect(holdsCode('0xef0100aa')).to.equal(true)
    expect(holdsCode('0x')).to.equal(false)
    expect(holdsCode('0x0')).to.equal(false)
    expect(holdsCode(null)).to.equal(undefined)
    expect(holdsCode('code')).to.equal(undefined)
  })
})

describe('a receipt as the node writes it, decoded once', () => {
  const hash = `0x${'AA'.repeat(32)}`
  const receipt = {
    transactionHash: hash,
    blockNumber: '0x10',
    blockHash: `0x${'bb'.repeat(32)}`,
    gasUsed: '0x5208',
    status: '0x1',
    to: '0x00000000000000000000000000000000000000CC',
    logs: [{ address: '0x00000000000000000000000000000000000000CC', topics: [`0x${'DD'.repeat(32)}`], data: '0x' }],
  }

  it('reads every field the settle needs, addresses and hashes in lower case', () => {
    const decoded = decodeNodeReceipt(receipt)
    const called = '0x00000000000000000000000000000000000000cc'
    expect(decoded).to.deep.include({ txHash: hash.toLowerCase(), blockNumber: 16n, gasUsed: 21000n, to: called })
    expect(decoded.succeeded).to.equal(true)
    expect(decoded.logs).to.deep.equal([{ address: called, topics: [`0x${'dd'.repeat(32)}`], data: '0x' }])
    const reverted = decodeNodeReceipt({ ...receipt, status: '0x0', to: null })
    expect(reverted).to.deep.include({ succeeded: false, to: undefined })
  })

  it('a log that is not one is no receipt: an UndecodableAnswer (the settle waits for recovery), never a cast', () => {
    const garbled = { ...receipt, logs: [{ address: 'nowhere', topics: [], data: '0x' }] }
    expect(() => decodeNodeReceipt(garbled)).to.throw(UndecodableAnswer, /^a receipt: expected a transaction receipt/)
    expect(() => decodeNodeReceipt({ ...receipt, logs: undefined })).to.throw(UndecodableAnswer)
  })
})

describe('the JSON-RPC envelope (a recording node)', () => {
  const serve = async (answer: (body: unknown) => unknown) => {
    const server = createHttpServer((request, response) => {
      let text = ''
      request.on('data', (chunk: Buffer) => (text += chunk.toString()))
      request.on('end', () => response.end(JSON.stringify(answer(JSON.parse(text)))))
    })
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
    const { port } = server.address() as { port: number }
    return { rpc: makeChainRpc({ rpcUrl: `http://127.0.0.1:${port}` }), close: () => server.close() }
  }
  const failureOf = (call: Promise<unknown>) =>
    call.then(
      () => undefined,
      (error: unknown) => classifyRpcError(error),
    )

  it('a result is the answer; an error with a code and message is a refusal; anything else is garbled', async () => {
    const answers = new Map<string, (id: unknown) => unknown>([
      ['result', (id) => ({ jsonrpc: '2.0', id, result: '0x1' })],
      ['refusal', (id) => ({ jsonrpc: '2.0', id, error: { code: -32000, message: 'nonce too low' } })],
      ['malformed error', (id) => ({ jsonrpc: '2.0', id, error: { code: 'x' } })],
      ['no object', () => 'hello'],
    ])
    const node = await serve((body) => answers.get((body as { method: string }).method)!((body as { id: unknown }).id))
    try {
      expect(await node.rpc.write('result', [])).to.equal('0x1')
      const refusal = await failureOf(node.rpc.write('refusal', []))
      expect(refusal).to.deep.include({ kind: 'answered', code: -32000, message: 'nonce too low' })
      expect(await failureOf(node.rpc.write('malformed error', []))).to.include({ kind: 'transport' })
      expect(await failureOf(node.rpc.write('no object', []))).to.include({ kind: 'transport' })
    } finally {
      node.rpc.close()
      node.close()
    }
  })

  it('in a batch, each call gets its answer by id; a call left out is unanswered, the others stand', async () => {
    const node = await serve((body) =>
      (body as Array<{ id: number; method: string }>)
        .filter((call) => call.method !== 'skipped')
        .map((call) => ({ jsonrpc: '2.0', id: call.id, result: call.method })),
    )
    try {
      const outcomes = await node.rpc.writeBatch([
        { method: 'first', params: [] },
        { method: 'skipped', params: [] },
        { method: 'third', params: [] },
      ])
      expect(outcomes[0]).to.deep.equal({ ok: true, result: 'first' })
      expect(outcomes[1]!.ok).to.equal(false)
      expect(classifyRpcError((outcomes[1] as { error: unknown }).error)).to.include({ kind: 'transport' })
      expect(outcomes[2]).to.deep.equal({ ok: true, result: 'third' })
    } finally {
      node.rpc.close()
      node.close()
    }
  })
})

describe('an RPC URL is never written whole into an error (providers put API keys in it)', () => {
  it('a refusal, of a single call or of one in a batch, names the node by scheme, host and port only', async () => {
    const server = createHttpServer((req, res) => {
      let body = ''
      req.on('data', (chunk: Buffer) => (body += chunk.toString()))
      req.on('end', () => {
        const parsed = JSON.parse(body) as { id: number } | Array<{ id: number }>
        const refuse = (id: number) => ({ jsonrpc: '2.0', id, error: { code: -32000, message: 'refused' } })
        res.setHeader('content-type', 'application/json')
        res.end(JSON.stringify(Array.isArray(parsed) ? parsed.map((p) => refuse(p.id)) : refuse(parsed.id)))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as { port: number }
    const rpc = makeChainRpc({ rpcUrl: `http://user:SECRET-A@127.0.0.1:${port}/v2/SECRET-B?key=SECRET-C` })
    try {
      const errors: unknown[] = []
      await rpc.read('eth_chainId').catch((error: unknown) => errors.push(error))
      await rpc.write('eth_sendRawTransaction', ['0x00']).catch((error: unknown) => errors.push(error))
      const [outcome] = await rpc.writeBatch([{ method: 'eth_sendRawTransaction', params: ['0x00'] }])
      if (outcome?.ok !== false) throw new Error('expected the batch call refused')
      errors.push(outcome.error)
      expect(errors).to.have.length(3)
      for (const error of errors) {
        const written = [String(error), (error as Error).stack, JSON.stringify(error)].join('\n')
        expect(written).not.to.match(/SECRET/)
        expect(written).to.include(`http://127.0.0.1:${port}`)
        expect(classifyRpcError(error)).to.deep.include({ kind: 'answered', code: -32000 })
      }
    } finally {
      rpc.close()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
