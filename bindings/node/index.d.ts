// Types of the promptc Node package (index.js over the native addon).

export type Transport = 'native' | 'xml' | 'json'
export type Provider = 'openai' | 'openai-responses' | 'anthropic' | 'gemini' | 'mcp'
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }

/** The options that pick a cell and its runtime values. */
export interface CompileOptions {
  /** The profile (default: the project's selection policy decides). */
  profile?: string
  transport?: Transport
  /** The provider of the native tool projection. */
  provider?: Provider
  /** The model id the selection policy looks at. */
  model?: string
  /** The context window in tokens. */
  contextWindow?: number | string
  switches?: Record<string, boolean | string>
  variables?: Record<string, JsonValue>
  /** Compile this sub-agent's prompt (not with `freeze`). */
  subagent?: string
  /** The untrusted-content nonce (default: random per compile). */
  nonce?: string
  /** A YAML or JSON file with switches, variables, model and context window. */
  contextFile?: string
  /** Drop a failing tool contribution (with a warning) instead of failing. */
  lenient?: boolean
}

export interface ReportOptions extends CompileOptions {
  /** Count with this tokenizer (o200k_base, cl100k_base, claude, gemini, ...). */
  tokenizer?: string
}

export type FreezeOptions = Omit<CompileOptions, 'subagent'>

/** One located problem: what is wrong, where, and how to fix it. */
export declare class Diagnostic {
  readonly severity: 'error' | 'warning' | 'info'
  readonly code: string | null
  readonly message: string
  readonly file: string | null
  readonly line: number | null
  readonly column: number | null
  readonly notes: string[]
  readonly help: string | null
  /** The diagnostic as the command line prints it. */
  toString(): string
}

/** A promptc failure; `message` is what the command line prints. */
export declare class PromptcError extends Error {
  readonly kind: 'project' | 'template' | 'usage' | 'record' | 'io' | 'internal'
  readonly diagnostics: Diagnostic[]
}

/** One rendered section. */
export interface Section {
  id: string
  text: string
  origin: string
  dynamic: boolean
  sha256: string
  /** Why it changes between sessions, when it does. */
  why?: string
}

/** Where the prompt stops being the same across sessions: measured, by compiling the cell again with another session's values. */
export interface CacheSplit {
  bytes: number
  last_static: string | null
  /** A section id, or `(outside sections)` for the layout's own text. */
  first_dynamic: string | null
  why: string | null
  /** False when the cell could not be compiled with another session's values (the analysis stands in). */
  measured: boolean
}

/** One cell of the snapshot matrix, with the options that compile it. */
export interface Cell {
  name: string
  profile: string
  case: string | null
  transport: Transport
  subagent: string | null
  providers: Provider[]
  options: CompileOptions
}

/** A compiled cell: the frozen prompt, its tool projection and metadata. */
export declare class Compiled {
  /** The system prompt, exactly as `promptc render` prints it. */
  readonly prompt: string
  /** The provider's tools (parsed), or null for the xml and json transports. */
  readonly tools: Array<Record<string, any>> | null
  /** The tools JSON text, exactly as `promptc render --tools` prints it, or null. */
  readonly toolsJson: string | null
  /** The artifact metadata (metadata.json). */
  readonly metadata: Record<string, any>
  readonly sections: Section[]
  readonly profile: string
  readonly transport: Transport
  readonly provider: Provider | null
  readonly subagent: string | null
  readonly toolNames: string[]
  readonly nonce: string
  /** Warnings collected while compiling (lenient mode), as plain diagnostic objects. */
  readonly warnings: Array<Omit<Diagnostic, 'toString'>>
  readonly cache: CacheSplit
  /** For an Anthropic cell: `system` blocks and `tools` with prompt-caching breakpoints. */
  anthropicRequest(): { system: Array<{ type: 'text'; text: string; cache_control?: { type: 'ephemeral' } }>; tools: Array<Record<string, any>> } | null
  /** Everything as the JSON text `promptc render --format json` prints. */
  toJsonText(): string
}

/** The verdict on a frozen record. */
export interface Verdict {
  fresh: boolean
  status: 'fresh' | 'stale'
  /** Why it is stale, one line each (as `promptc verify` prints them). */
  reasons: string[]
  /** Changes that did not alter the compiled output. */
  notes: string[]
  /** `promptc verify --format json`'s document. */
  findings: Record<string, any>
}

/** A loaded project: load once, compile many cells. */
export declare class Project {
  private constructor()
  /** Load the project at `path`: a manifest file, or a folder holding promptc.yaml. */
  static load(path: string): Project
  readonly name: string
  readonly root: string
  /** Load-time warnings (with the project's lint levels applied). */
  readonly warnings: Diagnostic[]
  /** Every cell of the snapshot matrix. */
  cells(): Cell[]
  /** Compile one cell. */
  compile(options?: CompileOptions): Compiled
  /** `compile` on the libuv thread pool: several run at once on one project. */
  compileAsync(options?: CompileOptions): Promise<Compiled>
  /** The cell's account, as `promptc report --format json` gives it. */
  report(options?: ReportOptions): Record<string, any>
  /** The frozen record (what `promptc freeze` writes), to keep and `verify` later. */
  freeze(options?: FreezeOptions): Record<string, any>
}

/** Whether a frozen record is still what `project` compiles. */
export declare function verify(record: Record<string, any> | string, project: Project): Verdict

/** The promptc version. */
export declare const version: string
