'use strict'
// promptc for Node: the compiler as a library. The native addon (src/lib.rs, loaded through
// the napi-generated native.js) does the work; this file gives it the package's API: classes
// whose failures are PromptcErrors carrying the diagnostics the command line prints.

const native = require('./native.js')

/** The prefix of a native error's message that carries promptc's diagnostics as JSON. */
const MARK = '\u0001promptc-error\u0001'

/** One located problem: what is wrong, where, and how to fix it. */
class Diagnostic {
  constructor(d) {
    this.severity = d.severity
    this.code = d.code ?? null
    this.message = d.message
    this.file = d.file ?? null
    this.line = d.line ?? null
    this.column = d.column ?? null
    this.notes = d.notes ?? []
    this.help = d.help ?? null
    Object.defineProperty(this, 'rendered', { value: d.rendered, enumerable: false })
  }

  /** The diagnostic as the command line prints it. */
  toString() {
    return this.rendered
  }
}

/** A promptc failure: `kind` says what failed, `diagnostics` where and how to fix it. */
class PromptcError extends Error {
  constructor(payload) {
    super(payload.message)
    this.name = 'PromptcError'
    this.kind = payload.kind
    this.diagnostics = payload.diagnostics.map((d) => new Diagnostic(d))
  }
}

function convert(e) {
  if (e instanceof Error && typeof e.message === 'string' && e.message.startsWith(MARK)) {
    return new PromptcError(JSON.parse(e.message.slice(MARK.length)))
  }
  return e
}

function call(f) {
  try {
    return f()
  } catch (e) {
    throw convert(e)
  }
}

/** The options without the keys set to null or undefined (both mean "the default"). */
function clean(options) {
  if (options === undefined || options === null) return undefined
  if (typeof options !== 'object') throw new TypeError('options must be an object')
  const out = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== null && v !== undefined))
  // A string is a string-valued switch's value (the library checks it is one of its values).
  for (const [name, on] of Object.entries(out.switches ?? {})) {
    if (typeof on !== 'boolean' && typeof on !== 'string') {
      throw new TypeError(`switch \`${name}\` must be true or false, or a string for a switch with values`)
    }
  }
  return out
}

const natives = new WeakMap()

/** A loaded project: load once, compile many cells. */
class Project {
  constructor(handle) {
    if (!(handle instanceof native.Project)) {
      throw new TypeError('use Project.load(path)')
    }
    natives.set(this, handle)
  }

  /** Load the project at `path`: a manifest file, or a folder holding promptc.yaml. */
  static load(path) {
    return new Project(call(() => native.Project.load(String(path))))
  }

  get name() {
    return natives.get(this).name
  }

  get root() {
    return natives.get(this).root
  }

  get warnings() {
    return natives.get(this).warnings.map((d) => new Diagnostic(d))
  }

  cells() {
    return natives.get(this).cells()
  }

  compile(options) {
    return call(() => natives.get(this).compile(clean(options)))
  }

  async compileAsync(options) {
    try {
      return await natives.get(this).compileAsync(clean(options))
    } catch (e) {
      throw convert(e)
    }
  }

  report(options) {
    return JSON.parse(call(() => natives.get(this).reportJson(clean(options))))
  }

  freeze(options) {
    if (options && options.subagent !== undefined) {
      throw new TypeError('sub-agent prompts are never frozen: freeze the main prompt')
    }
    return JSON.parse(call(() => natives.get(this).freezeJson(clean(options))))
  }
}

/** Whether a frozen record (what `freeze` returned, or its JSON text) is still what `project` compiles. */
function verify(record, project) {
  const handle = natives.get(project)
  if (!handle) {
    throw new TypeError('verify(record, project): project must be a loaded Project')
  }
  return call(() => native.verify(record, handle))
}

module.exports = {
  Compiled: native.Compiled,
  Diagnostic,
  Project,
  PromptcError,
  verify,
  version: native.version(),
}
