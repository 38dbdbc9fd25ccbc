'use strict'
// Benchmark: compiling one cell of the example from a loaded project, in process, against
// spawning the promptc binary for the same cell. Target: <= 1 ms median in process.
//
//   scripts/node-package.sh bench [RUNS]

const path = require('node:path')
const { spawnSync } = require('node:child_process')

const promptc = require('.')

const repo = path.resolve(__dirname, '..', '..')
const runs = Number(process.argv[2] ?? 500)

function medianMs(f, n) {
  const samples = []
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint()
    f()
    samples.push(Number(process.hrtime.bigint() - start) / 1e6)
  }
  samples.sort((a, b) => a - b)
  return samples[Math.floor(n / 2)]
}

const project = promptc.Project.load(path.join(repo, 'profiles'))
const options = { profile: 'standard', provider: 'anthropic', nonce: 'abcd1234', variables: { cwd: '/repo' } }
project.compile(options)
const compileMs = medianMs(() => project.compile(options), runs)
const readMs = medianMs(() => { const c = project.compile(options); return [c.prompt, c.tools] }, runs)
const bin = process.env.PROMPTC_BIN
const flags = ['-C', path.join(repo, 'profiles'), 'render', '--profile', 'standard', '--provider', 'anthropic',
  '--nonce', 'abcd1234', '--var', 'cwd=/repo']
const spawnMs = medianMs(() => spawnSync(bin, flags, { encoding: 'utf8' }), Math.max(10, Math.floor(runs / 20)))
console.log(`node: compile one cell (in process)      median ${compileMs.toFixed(3)} ms over ${runs} runs`)
console.log(`node: compile + read prompt and tools   median ${readMs.toFixed(3)} ms`)
console.log(`node: spawn \`promptc render\` (${path.basename(path.dirname(bin))} binary) median ${spawnMs.toFixed(3)} ms`)
