'use strict'
// Errors are PromptcErrors with the diagnostics the command line prints.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const promptc = require('..')
const { repo, cli } = require('./helpers.js')

const bad = fs.readdirSync(path.join(repo, 'fixtures', 'bad'), { withFileTypes: true })
  .filter((e) => e.isDirectory()).map((e) => e.name).sort()

function bindingError(rel) {
  try {
    promptc.Project.load(rel).compile()
  } catch (e) {
    return e
  }
  assert.fail(`${rel}: no error`)
}

test('bad fixtures fail with the CLI\'s diagnostics', () => {
  process.chdir(repo)
  let checked = 0
  for (const name of bad) {
    const rel = `fixtures/bad/${name}`
    const proc = cli(['-C', rel, 'render'], { check: false })
    if (proc.status === 0) continue // fails `check`, not `render`
    assert.equal(proc.status, 2, proc.stderr)
    const err = bindingError(rel)
    assert.ok(err instanceof promptc.PromptcError, `${name}: ${err}`)
    // The same diagnostics, but the help: where the library says what is needed in its own
    // words, the command line names the flag (the library never names one).
    const noHelp = (text) => text.replace(/\n+$/, '').split('\n').filter((l) => !l.startsWith('  = help:')).join('\n')
    assert.ok(noHelp(proc.stderr).endsWith(noHelp(err.message)), `${name}\nCLI:\n${proc.stderr}\nnode:\n${err.message}`)
    for (const line of err.message.split('\n').filter((l) => l.startsWith('  = help:'))) {
      assert.ok(proc.stderr.includes(line) || /= help: .*--[a-z]/.test(proc.stderr), `${name}: ${line}`)
    }
    assert.ok(err.diagnostics.length > 0)
    for (const d of err.diagnostics) {
      if (d.file !== null && d.line !== null) assert.ok(proc.stderr.includes(`${d.file}:${d.line}:${d.column}`), name)
      assert.ok(proc.stderr.includes(d.message), name)
      assert.equal(String(d), d.toString())
    }
    checked++
  }
  assert.ok(checked >= 50, `${checked}`)
})

test('bad options are usage errors with help', () => {
  const example = promptc.Project.load(path.join(repo, 'profiles'))
  for (const [options, pattern] of [
    [{ transport: 'nativ' }, /unknown transport `nativ`/],
    [{ provider: 'openia' }, /unknown provider/],
    [{ profile: 'nope' }, /unknown profile/],
    [{ nonce: 'x' }, /invalid nonce/],
    [{ switches: { no_such_switch: true } }, /no_such_switch/],
    [{ transport: 'xml', provider: 'openai' }, /no effect with the xml transport/],
    [{ contextWindow: 0.5 }, /not a context window/],
    [{ contextWindow: 'lots' }, /not a context window/],
  ]) {
    assert.throws(() => example.compile(options), (e) => {
      assert.ok(e instanceof promptc.PromptcError, String(e))
      assert.equal(e.kind, 'usage')
      assert.match(e.message, pattern)
      return true
    })
  }
  // A string goes to the switch as a value: an on/off switch says it takes true or false.
  assert.throws(() => example.compile({ switches: { browser: 'yes' } }), /invalid value `yes` for switch `browser`/)
  assert.throws(() => example.compile({ switches: { browser: 1 } }), TypeError)
})

test('a load error is located', () => {
  process.chdir(repo)
  const err = bindingError('fixtures/bad/malformed-yaml')
  assert.equal(err.kind, 'project')
  const [d] = err.diagnostics
  assert.equal(d.severity, 'error')
  assert.match(d.file, /promptc\.yaml$/)
  assert.ok(d.line > 0 && d.column > 0)
})
