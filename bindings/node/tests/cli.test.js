'use strict'
// The package's `promptc` command (bin/promptc.js, the CLI compiled into the addon) prints what
// the binary prints and exits with its codes.

const test = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const { repo, cli } = require('./helpers.js')

const command = path.join(__dirname, '..', 'bin', 'promptc.js')

function run(args) {
  return spawnSync(process.execPath, [command, '--color', 'never', ...args], {
    cwd: repo,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    maxBuffer: 64 << 20,
  })
}

test('promptc --version is the binary version', () => {
  const proc = spawnSync(process.execPath, [command, '--version'], { encoding: 'utf8' })
  assert.equal(proc.status, 0, proc.stderr)
  assert.equal(proc.stdout, cli(['--version']).stdout)
})

test('promptc render prints what the binary renders', () => {
  const args = ['-C', 'profiles', 'render', '--nonce', 'abcd1234']
  const proc = run(args)
  assert.equal(proc.status, 0, proc.stderr)
  assert.equal(proc.stdout, cli(args).stdout)
})

test('a usage error exits 2, as the binary does', () => {
  const proc = run(['no-such-command'])
  assert.equal(proc.status, 2)
  assert.equal(proc.status, cli(['no-such-command'], { check: false }).status)
  assert.match(proc.stderr, /no-such-command/)
})
