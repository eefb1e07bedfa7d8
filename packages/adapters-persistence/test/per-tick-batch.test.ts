import { expect } from 'chai'
import { perTickBatch } from '../src/journal/per-tick-batch.js'

class Refused extends Error {}

describe('perTickBatch', () => {
  const make = (manyFails?: Error) => {
    const log: string[] = []
    const call = perTickBatch<number, string>({
      one: async (n) => {
        log.push(`one ${n}`)
        if (n === 13) throw new Refused('13 refused')
        return `one:${n}`
      },
      many: async (ns) => {
        log.push(`many ${ns.join(',')}`)
        if (manyFails) throw manyFails
        return ns.map((n) => (n === 7 ? new Error('7 failed after the statement') : `many:${n}`))
      },
      keysOf: (n) => (n >= 100 ? [String(n % 10), `h${Math.floor(n / 100)}`] : [String(n % 10)]),
      refusedByTheDatabase: (error) => error instanceof Refused,
    })
    return { call, log }
  }
  const settled = (promises: Array<Promise<string>>) =>
    Promise.all(
      promises.map((p) =>
        p.then(
          (value) => value,
          (error: Error) => `error:${error.message}`,
        ),
      ),
    )

  it('calls of one tick go as one batch; a repeated key goes in a later one; a lone call as itself', async () => {
    const { call, log } = make()
    expect(await settled([call(1), call(2), call(11), call(3)])).to.deep.equal(['many:1', 'many:2', 'one:11', 'many:3'])
    expect(log).to.deep.equal(['many 1,2,3', 'one 11'])
    expect(await call(4)).to.equal('one:4')
  })

  it('a call of several keys runs after every earlier call sharing one of them, in call order', async () => {
    const { call, log } = make()
    // 102 shares 2 with 2, and h1 with 105: 105 waits for 102's batch although it shares nothing with the first.
    const answers = await settled([call(1), call(2), call(11), call(102), call(105), call(3)])
    expect(answers).to.deep.equal(['many:1', 'many:2', 'many:11', 'many:102', 'one:105', 'many:3'])
    expect(log).to.deep.equal(['many 1,2,3', 'many 11,102', 'one 105'])
  })

  it('a batch the database refused runs call by call, in order: only the bad call fails', async () => {
    const { call, log } = make(new Refused('batch refused'))
    expect(await settled([call(12), call(13), call(14)])).to.deep.equal(['one:12', 'error:13 refused', 'one:14'])
    expect(log).to.deep.equal(['many 12,13,14', 'one 12', 'one 13', 'one 14'])
  })

  it('a batch lost on the way (it may have committed) is not run again: each call gets the failure', async () => {
    const { call, log } = make(new Error('Connection terminated unexpectedly'))
    expect(await settled([call(1), call(2)])).to.deep.equal([
      'error:Connection terminated unexpectedly',
      'error:Connection terminated unexpectedly',
    ])
    expect(log).to.deep.equal(['many 1,2'])
  })

  it('a call that fails after its batch statement fails alone, and nothing runs again', async () => {
    const { call, log } = make()
    expect(await settled([call(6), call(7), call(8)])).to.deep.equal([
      'many:6',
      'error:7 failed after the statement',
      'many:8',
    ])
    expect(log).to.deep.equal(['many 6,7,8'])
  })
})
