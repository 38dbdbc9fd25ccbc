'use strict'
// Shared by the tests: the repository, the promptc binary the package is compared with
// (PROMPTC_BIN, set by scripts/node-package.sh), and the flags of a cell.

const path = require('node:path')
const { spawnSync } = require('node:child_process')

const repo = path.resolve(__dirname, '..', '..', '..')

function cli(args, { check = true } = {}) {
  const bin = process.env.PROMPTC_BIN
  if (!bin) throw new Error('PROMPTC_BIN is not set: run the tests with scripts/node-package.sh test')
  const proc = spawnSync(bin, ['--color', 'never', ...args], {
    cwd: repo,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    maxBuffer: 64 << 20,
  })
  if (check && proc.status !== 0) {
    throw new Error(`promptc ${args.join(' ')} exited ${proc.status}:\n${proc.stderr}`)
  }
  return proc
}

function cellFlags(options) {
  const flags = ['--profile', options.profile, '--transport', options.transport, '--nonce', options.nonce]
  for (const [name, on] of Object.entries(options.switches)) flags.push('--set', `${name}=${on}`)
  for (const [name, value] of Object.entries(options.variables)) {
    if (typeof value !== 'string') throw new Error(`variable ${name} is not a string`)
    flags.push('--var', `${name}=${value}`)
  }
  if (options.subagent) flags.push('--subagent', options.subagent)
  return flags
}

module.exports = { repo, cli, cellFlags }
