'use strict'
// A loaded project is reusable; compileAsync runs several compiles at once on the thread
// pool; worker threads load and compile on their own.

const test = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { Worker } = require('node:worker_threads')

const promptc = require('..')
const { repo } = require('./helpers.js')

const example = promptc.Project.load(path.join(repo, 'profiles'))

test('parallel async compiles equal serial ones', async () => {
  const cells = example.cells()
  const serial = cells.map((c) => example.compile(c.options).prompt)
  for (let round = 0; round < 3; round++) {
    const parallel = await Promise.all(cells.map((c) => example.compileAsync(c.options)))
    assert.deepEqual(parallel.map((c) => c.prompt), serial)
  }
  await assert.rejects(example.compileAsync({ profile: 'nope' }), promptc.PromptcError)
})

test('worker threads compile the same prompts', async () => {
  const expected = example.compile({ profile: 'lite', nonce: 'abcd1234' }).prompt
  const code = `
    const { parentPort, workerData } = require('node:worker_threads')
    const promptc = require(workerData.pkg)
    const p = promptc.Project.load(workerData.project)
    parentPort.postMessage(p.compile({ profile: 'lite', nonce: 'abcd1234' }).prompt)`
  const results = await Promise.all([0, 1, 2, 3].map(() => new Promise((resolve, reject) => {
    const w = new Worker(code, { eval: true, workerData: { pkg: path.resolve(__dirname, '..'), project: path.join(repo, 'profiles') } })
    w.once('message', resolve)
    w.once('error', reject)
  })))
  for (const r of results) assert.equal(r, expected)
})
