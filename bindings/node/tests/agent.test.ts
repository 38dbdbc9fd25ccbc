// A minimal agent loop: pick a cell at run time, compile it, and send it through the real
// OpenAI and Anthropic SDK clients with a fetch that records the request instead of using the
// network. The requests are typed with the SDKs' own parameter types (tsc checks them), and
// the recorded bodies must carry exactly the compiled prompt and tools.

import test from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'

import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'

import * as promptc from 'promptc-cli'

const repo = path.resolve(__dirname, '..', '..', '..', '..')
const project = promptc.Project.load(path.join(repo, 'profiles'))

/** A fetch that records the request body and answers with `reply`. */
function recorder(reply: object): { fetch: typeof fetch; bodies: any[] } {
  const bodies: any[] = []
  const fake = async (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    bodies.push(JSON.parse(String(init?.body)))
    return new Response(JSON.stringify(reply), { status: 200, headers: { 'content-type': 'application/json' } })
  }
  return { fetch: fake as typeof fetch, bodies }
}

function openaiRequest(task: string, cwd: string): OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming {
  const cell = project.compile({ model: 'gpt-4.1', provider: 'openai', variables: { cwd }, switches: { browser: true } })
  return {
    model: 'gpt-4.1',
    messages: [
      { role: 'system', content: cell.prompt },
      { role: 'user', content: task },
    ],
    tools: cell.tools as OpenAI.Chat.Completions.ChatCompletionTool[],
  }
}

function anthropicRequest(task: string, cwd: string): Anthropic.MessageCreateParamsNonStreaming {
  const cell = project.compile({ model: 'claude-sonnet-4-5', provider: 'anthropic', variables: { cwd } })
  const request = cell.anthropicRequest()
  assert.ok(request)
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    system: request.system,
    tools: request.tools as Anthropic.ToolUnion[],
    messages: [{ role: 'user', content: task }],
  }
}

test('the OpenAI client sends the compiled prompt and tools', async () => {
  const { fetch, bodies } = recorder({
    id: 'x', object: 'chat.completion', created: 0, model: 'gpt-4.1',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'done', refusal: null } }],
  })
  const client = new OpenAI({ apiKey: 'test', baseURL: 'http://127.0.0.1:9/v1', fetch, maxRetries: 0 })
  const request = openaiRequest('Fix the failing test', '/work/app')
  const reply = await client.chat.completions.create(request)
  assert.equal(reply.choices[0].message.content, 'done')
  assert.equal(bodies.length, 1)
  assert.deepEqual(bodies[0].messages, request.messages)
  assert.deepEqual(bodies[0].tools, request.tools)
  assert.ok(bodies[0].messages[0].content.includes('/work/app'))
  assert.ok(bodies[0].tools.length > 0 && bodies[0].tools.every((t: any) => t.type === 'function'))
})

test('the Anthropic client sends the cached system blocks and tools', async () => {
  const { fetch, bodies } = recorder({
    id: 'x', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', stop_reason: 'end_turn',
    stop_sequence: null, content: [{ type: 'text', text: 'done' }],
    usage: { input_tokens: 1, output_tokens: 1 },
  })
  const client = new Anthropic({ apiKey: 'test', baseURL: 'http://127.0.0.1:9', fetch, maxRetries: 0 })
  const request = anthropicRequest('Fix the failing test', '/work/app')
  const reply = await client.messages.create(request)
  assert.equal(reply.content[0].type, 'text')
  const [body] = bodies
  assert.deepEqual(body.system, request.system)
  assert.deepEqual(body.tools, request.tools)
  const system = body.system.map((b: any) => b.text).join('')
  assert.equal(system, project.compile({ model: 'claude-sonnet-4-5', provider: 'anthropic',
    variables: { cwd: '/work/app' } }).prompt)
  assert.ok(body.tools.at(-1).cache_control)
})

test('the SDK types reject a request in the wrong shape', () => {
  const cell = project.compile({ provider: 'anthropic' })
  // @ts-expect-error: Anthropic's tools take `input_schema`, not OpenAI's `function` wrapper.
  const wrong: Anthropic.MessageCreateParamsNonStreaming = { model: 'm', max_tokens: 1, messages: [], tools: [{ type: 'function', function: cell.tools?.[0] }] }
  assert.ok(wrong)
})
