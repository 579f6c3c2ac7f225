/**
 * `acdp publish <body.json> --key FILE`: completes, hashes, signs and publishes a context body, printing the
 * assigned ctx_id and its Location.
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { createProducer, isProtocolError, type ProducerKey, parseKeyFile } from '@acdp/protocol'
import { type CliIo, type Command, parseCommandArgs } from '../command.js'
import { CliError, EXIT, usageError } from '../exit-codes.js'
import { guardRegistryCalls } from '../http/wrong-service.js'
import { resolveStackTarget } from '../stack-target.js'
import { describeContextTypes } from './context-types.js'
import { readJsonFile } from './input-files.js'
import { checkBaseUrl, JSON_OPTION } from './shared-options.js'

/** `acdp publish` (help text below is what `acdp publish --help` prints). */
export const publishCommand: Command = {
  name: 'publish',
  summary: 'sign and publish a context body',
  help: `Usage: acdp publish <body.json> --key FILE [--registry URL] [--run-id ID] [--idempotency-key K] [--supersedes CTX] [--json]

Reads a context body (JSON object), fills the members it leaves out (agent_id from the key, version 1,
supersedes null, empty contributors/data_refs/derived_from, visibility public, acdp_version), computes its
content_hash, signs it and POSTs it to the registry. Prints the ctx_id on the first line and the Location
on the second ("-" reads the body from standard input). A refused body is reported with the registry's own
explanation: one line per offending member (its JSON path and the rule it breaks).

The body's "type" is one of: ${describeContextTypes()}.

Options:
  --key FILE            key file written by acdp keygen (required)
  --registry URL        registry base URL (default: ACDP_REGISTRY_URL, the running dev stack, http://127.0.0.1:3000)
  --run-id ID           sent as X-Run-Id: the control plane files the context under run ID
  --idempotency-key K   sent as Idempotency-Key: a retry with the same key returns the same ctx_id (exit 0)
  --supersedes CTX      publish a new version of CTX (version = CTX's version + 1)
  --data-dir DIR        dev-stack data directory to read the registry URL from (default ./data)
  --json                print { ctx_id, location, status, replayed, response }; a failure as { "error": … }`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      'publish',
      args,
      {
        ...JSON_OPTION,
        key: { type: 'string' },
        registry: { type: 'string' },
        'data-dir': { type: 'string' },
        'run-id': { type: 'string' },
        'idempotency-key': { type: 'string' },
        supersedes: { type: 'string' },
      },
      { min: 1, max: 1, names: 'one body file' },
    )
    if (values.key === undefined) throw usageError('--key FILE is required (create one with acdp keygen)')
    const key = readKeyFile(io, values.key)
    const body = readBodyFile(io, positionals[0]!)
    const target = resolveStackTarget(io, {
      registry: checkBaseUrl('registry', values.registry),
      dataDir: values['data-dir'],
    })
    const registry = guardRegistryCalls(io, [target.registryUrl]).io
    const producer = createProducer({ registryUrl: target.registryUrl, key, fetch: registry.fetch })
    let result: Awaited<ReturnType<typeof producer.publish>>
    try {
      result = await producer.publish(body, {
        signal: io.signal,
        ...(values['run-id'] === undefined ? {} : { runId: values['run-id'] }),
        ...(values['idempotency-key'] === undefined ? {} : { idempotencyKey: values['idempotency-key'] }),
        ...(values.supersedes === undefined ? {} : { supersedes: values.supersedes }),
      })
    } catch (error) {
      // completeProducerContent refuses a body whose agent_id is another DID: the input file is wrong.
      if (error instanceof TypeError) throw usageError(error.message)
      throw error
    }
    const location = new URL(result.location, `${target.registryUrl.replace(/\/+$/, '')}/`).href
    if (values.json) {
      const summary = {
        ctx_id: result.ctxId,
        location,
        status: result.status,
        replayed: result.replayed,
        response: result.response,
      }
      io.stdout(`${JSON.stringify(summary, null, 2)}\n`)
    } else {
      io.stdout(`${result.ctxId}\nLocation: ${location}\n`)
      if (result.replayed)
        io.stderr('idempotent replay: the registry returned the context published earlier with this key\n')
    }
    return EXIT.ok
  },
}

/** Loads a key file; any problem with it is a usage error (exit 2). */
export function readKeyFile(io: Pick<CliIo, 'cwd'>, path: string): ProducerKey {
  const fullPath = resolve(io.cwd, path)
  let text: string
  try {
    text = readFileSync(fullPath, 'utf8')
  } catch (error) {
    throw new CliError(EXIT.usage, 'usage', `cannot read key file ${fullPath}: ${(error as Error).message}`, {
      cause: error,
    })
  }
  try {
    return parseKeyFile(text)
  } catch (error) {
    if (isProtocolError(error))
      throw new CliError(EXIT.usage, 'usage', `${fullPath} is not a usable key file: ${error.message}`)
    throw error
  }
}

function readBodyFile(io: Pick<CliIo, 'cwd'>, path: string): Record<string, unknown> {
  const { fullPath, value } = readJsonFile(io, 'body', path)
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw usageError(`${fullPath} must hold a JSON object`)
  return value as Record<string, unknown>
}
