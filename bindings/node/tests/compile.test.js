'use strict'
// The package compiles what the command line renders, byte for byte, for every cell.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const promptc = require('..')
const { repo, cli, cellFlags } = require('./helpers.js')

const example = promptc.Project.load(path.join(repo, 'profiles'))

test('every cell: prompt and tools equal the CLI and the snapshots', () => {
  const cells = example.cells()
  assert.ok(cells.length >= 12)
  let compared = 0
  for (const cell of cells) {
    const compiled = example.compile(cell.options)
    const flags = cellFlags(cell.options)
    assert.equal(compiled.prompt, cli(['render', ...flags]).stdout, cell.name)
    const snapshot = fs.readFileSync(path.join(repo, 'snapshots', `${cell.name}.prompt.md`), 'utf8')
    assert.equal(compiled.prompt, snapshot, cell.name)
    compared++
    for (const provider of cell.providers) {
      const withProvider = example.compile({ ...cell.options, provider })
      const expected = cli(['render', '--tools', ...flags, '--provider', provider]).stdout
      assert.equal(withProvider.toolsJson, expected, `${cell.name}.${provider}`)
      assert.deepEqual(withProvider.tools, JSON.parse(expected))
      const file = path.join(repo, 'snapshots', `${cell.name}.${provider}.tools.json`)
      assert.equal(withProvider.toolsJson, fs.readFileSync(file, 'utf8'))
      compared++
    }
  }
  assert.ok(compared >= 40, `${compared}`)
})

test('the render JSON document equals the CLI', () => {
  const compiled = example.compile({ profile: 'lite', provider: 'anthropic', nonce: 'abcd1234' })
  const expected = cli(['render', '--format', 'json', '--profile', 'lite', '--provider', 'anthropic',
    '--nonce', 'abcd1234']).stdout
  assert.equal(compiled.toJsonText(), expected)
  const doc = JSON.parse(expected)
  assert.deepEqual(compiled.metadata, doc.metadata)
  assert.deepEqual(compiled.sections, doc.sections)
  assert.deepEqual(compiled.cache, doc.cache)
  assert.deepEqual(compiled.anthropicRequest(), doc.anthropic_request)
})

test('accessors of an xml cell', () => {
  const compiled = example.compile({ profile: 'standard', transport: 'xml', nonce: 'abcd1234' })
  assert.equal(compiled.profile, 'standard')
  assert.equal(compiled.transport, 'xml')
  assert.equal(compiled.provider, null)
  assert.equal(compiled.tools, null)
  assert.equal(compiled.toolsJson, null)
  assert.equal(compiled.nonce, 'abcd1234')
  assert.equal(compiled.anthropicRequest(), null)
  assert.ok(compiled.toolNames.length > 0)
})

test('runtime values and the selection policy', () => {
  const moved = example.compile({ profile: 'standard', nonce: 'abcd1234', variables: { cwd: '/srv/app' } })
  assert.ok(moved.prompt.includes('/srv/app'))
  for (const [model, window] of [['openai/o1-mini', null], ['anthropic/claude-sonnet-4', 200000], ['small', 8000]]) {
    const options = { model, nonce: 'abcd1234' }
    const flags = ['--model', model, '--nonce', 'abcd1234']
    if (window) {
      options.contextWindow = window
      flags.push('--context-window', String(window))
    }
    assert.equal(example.compile(options).prompt, cli(['render', ...flags]).stdout, model)
  }
})

test('report equals the CLI', () => {
  const report = example.report({ profile: 'lite', provider: 'openai' })
  const expected = JSON.parse(cli(['report', '--format', 'json', '--no-cache', '--profile', 'lite',
    '--provider', 'openai']).stdout)
  assert.deepEqual(report, expected)
})

test('the version is the CLI version', () => {
  assert.equal(cli(['--version']).stdout.trim(), `promptc ${promptc.version}`)
})

test('string-valued switches take strings', () => {
  const project = promptc.Project.load(path.join(repo, 'fixtures/good/switch-values'))
  const batch = project.compile({ switches: { style: 'batch', sandbox: true } })
  assert.equal(batch.prompt, cli(['-C', 'fixtures/good/switch-values', 'render', '--set', 'style=batch']).stdout)
  assert.throws(() => project.compile({ switches: { style: 'loud' } }), /one of: interactive, batch, terse, verbose/)
  const terse = project.cells().find((c) => c.case === 'terse')
  assert.equal(terse.options.switches.style, 'terse')
})
