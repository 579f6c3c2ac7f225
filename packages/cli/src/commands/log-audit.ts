/**
 * `acdp log audit <registry>`: watches a registry's transparency log (RFC-ACDP-0012) over time. Each poll reads
 * `GET /log/checkpoint`, verifies its signature and registry binding (§9.3), and proves it consistent with the
 * last verified checkpoint through `GET /log/proof?first=&second=` (§9.2, RFC 9162 §2.1.4.2). A log that
 * shrinks, forks at one size, changes its log_id, or cannot prove consistency is reported as a history rewrite
 * with both signed checkpoints as evidence. `--state FILE` keeps the last verified checkpoint between runs, so
 * audits spread over days compare against what was seen before. Works against any registry speaking RFC-ACDP-0012.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import {
  countWitnesses,
  type LogCheckpoint,
  type VerifiedCheckpoint,
  verifyCheckpoint,
  verifyLogConsistency,
} from '@acdp/protocol'
import { type CliIo, type Command, parseCommandArgs } from '../command.js'
import { CliError, EXIT, type ExitCode, usageError } from '../exit-codes.js'
import { sanitizeTerminalText } from '../render/text-table.js'
import { guardRegistryCalls } from '../http/wrong-service.js'
import { getRegistryJson } from '../verify/registry-fetch.js'
import { createCliResolver } from '../verify/registry-resolver.js'
import { checkBaseUrl, JSON_OPTION, parseIntegerFlag } from './shared-options.js'

type Retained = Pick<LogCheckpoint, 'log_id' | 'tree_size' | 'root_hash'> & Partial<LogCheckpoint>

/** One audit step, for the text lines and the --json document. */
interface AuditStep {
  ok: boolean
  tree_size?: number
  detail: string
  checkpoint?: LogCheckpoint
}

export const logCommand: Command = {
  name: 'log',
  summary: 'audit a registry transparency log: checkpoints over time, consistency proofs between them',
  help: `Usage: acdp log audit <registry URL> [--count N] [--interval SECONDS] [--state FILE] [--authority HOST] [--json]

Polls GET /log/checkpoint N times (default 2), --interval seconds apart (default 10). Every checkpoint's
signature and registry binding are verified; each one is proven consistent with the previous verified one
through GET /log/proof?first=<m>&second=<n>. A log that shrinks, forks, changes log_id or fails a proof is
a history rewrite: the command prints both signed checkpoints and exits 1.
The registry's DID document (checkpoint key) is read from <registry URL>/.well-known/did.json.

Options:
  --count N             checkpoints to fetch (1-10000, default 2)
  --interval SECONDS    wait between fetches (0-86400, default 10)
  --state FILE          read the last verified checkpoint from FILE first, write the newest one back
  --authority HOST      the registry's authority (host or host:port) the checkpoints must be bound to
                        (default: taken from the registry's capabilities registry_did)
  --json                print { "ok", "log_id", "steps": [...] }

Exit 0 when every checkpoint verified and all are consistent, 1 on any failure, 3 when unreachable.`,
  async run(args, io) {
    const [sub, ...rest] = args
    if (sub !== 'audit') throw usageError('expected "acdp log audit <registry URL>" (see acdp log --help)')
    const { values, positionals } = parseCommandArgs(
      'log',
      rest,
      {
        ...JSON_OPTION,
        count: { type: 'string' },
        interval: { type: 'string' },
        state: { type: 'string' },
        authority: { type: 'string' },
      },
      { min: 1, max: 1, names: 'one registry URL' },
    )
    const registryUrl = checkBaseUrl('registry', positionals[0]) as string
    const registryIo = guardRegistryCalls(io, [registryUrl]).io
    const count = parseIntegerFlag('count', values.count, 1, 10_000) ?? 2
    const intervalMs = (parseIntegerFlag('interval', values.interval, 0, 86_400) ?? 10) * 1000
    const statePath = values.state === undefined ? undefined : resolve(io.cwd, values.state)
    const authority = values.authority ?? (await authorityFromCapabilities(registryIo, registryUrl))
    if (!/^[a-z0-9.-]+(?::\d{1,5})?$/i.test(authority))
      throw usageError(`--authority "${authority}" is not host[:port]`)

    const { resolver, close } = createCliResolver(registryIo, registryUrl, authority)
    const context = {
      authority,
      resolveKey: (keyId: string) => resolver.resolveKey(keyId, { historical: true }),
      now: new Date(),
    }
    const steps: AuditStep[] = []
    let retained: Retained | undefined = statePath === undefined ? undefined : readState(statePath)
    let exit: ExitCode = EXIT.ok
    try {
      for (let i = 0; i < count && exit === EXIT.ok; i++) {
        if (i > 0) await sleep(intervalMs, io.signal)
        context.now = new Date()
        const step = await auditOnce(registryIo, registryUrl, context, retained)
        steps.push(step)
        if (!step.ok) exit = EXIT.failure
        else if (step.checkpoint) retained = step.checkpoint
      }
    } finally {
      await close()
    }
    if (exit === EXIT.ok && statePath !== undefined && retained !== undefined) {
      writeFileSync(statePath, `${JSON.stringify(retained, null, 2)}\n`)
    }
    if (values.json) {
      io.stdout(`${JSON.stringify({ ok: exit === EXIT.ok, authority, steps }, null, 2)}\n`)
    } else {
      io.stdout(`${render(authority, steps, exit === EXIT.ok)}\n`)
    }
    return exit
  },
}

async function auditOnce(
  io: CliIo,
  registryUrl: string,
  context: Parameters<typeof verifyCheckpoint>[1],
  retained: Retained | undefined,
): Promise<AuditStep> {
  const answer = await getRegistryJson(io, registryUrl, '/log/checkpoint')
  if (answer.status !== 200) {
    throw new CliError(
      EXIT.failure,
      'log_unavailable',
      `GET /log/checkpoint answered ${answer.status}${logHint(answer.status)}`,
    )
  }
  // RFC-ACDP-0015 aggregation: { log_checkpoint, witness_signatures } instead of the bare checkpoint.
  const document = answer.body as Record<string, unknown>
  const raw = document?.['log_checkpoint'] ?? document
  let verified: VerifiedCheckpoint
  try {
    verified = await verifyCheckpoint(raw, context)
  } catch (error) {
    return { ok: false, detail: `invalid checkpoint: ${describe(error)}` }
  }
  const checkpoint = verified.checkpoint
  const witnesses = await witnessNote(document, checkpoint, context)
  const base = { tree_size: checkpoint.tree_size, checkpoint }
  if (retained === undefined) {
    return {
      ...base,
      ok: true,
      detail: `checkpoint verified: size ${checkpoint.tree_size}, root ${checkpoint.root_hash}${witnesses}`,
    }
  }
  const evidence = `previous ${JSON.stringify(strip(retained))}, now ${JSON.stringify(checkpoint)}`
  if (checkpoint.log_id !== retained.log_id) {
    return {
      ...base,
      ok: false,
      detail: `log_id changed from ${retained.log_id} to ${checkpoint.log_id} (log reset): ${evidence}`,
    }
  }
  if (checkpoint.tree_size < retained.tree_size) {
    return {
      ...base,
      ok: false,
      detail: `HISTORY REWRITE: the log shrank from ${retained.tree_size} to ${checkpoint.tree_size}: ${evidence}`,
    }
  }
  if (checkpoint.tree_size === retained.tree_size || retained.tree_size === 0) {
    if (checkpoint.tree_size === retained.tree_size && checkpoint.root_hash !== retained.root_hash) {
      return { ...base, ok: false, detail: `HISTORY REWRITE: two roots for size ${checkpoint.tree_size}: ${evidence}` }
    }
    return { ...base, ok: true, detail: `size ${retained.tree_size} → ${checkpoint.tree_size}: consistent${witnesses}` }
  }
  const proof = await getRegistryJson(
    io,
    registryUrl,
    `/log/proof?first=${retained.tree_size}&second=${checkpoint.tree_size}`,
  )
  if (proof.status !== 200) {
    return {
      ...base,
      ok: false,
      detail: `no consistency proof ${retained.tree_size} → ${checkpoint.tree_size} (GET /log/proof answered ${proof.status}): ${evidence}`,
    }
  }
  try {
    const second = await verifyLogConsistency(proof.body, retained, context)
    // The proof's own checkpoint must name the same root for that size (else: a split view).
    if (second.checkpoint.root_hash !== checkpoint.root_hash) {
      return {
        ...base,
        ok: false,
        detail: `HISTORY REWRITE: the proof's checkpoint and /log/checkpoint disagree on size ${checkpoint.tree_size}: ${evidence}`,
      }
    }
  } catch (error) {
    return {
      ...base,
      ok: false,
      detail: `HISTORY REWRITE: consistency ${retained.tree_size} → ${checkpoint.tree_size} does not verify (${describe(error)}): ${evidence}`,
    }
  }
  return {
    ...base,
    ok: true,
    detail: `size ${retained.tree_size} → ${checkpoint.tree_size}: consistency proof verified${witnesses}`,
  }
}

async function witnessNote(
  document: Record<string, unknown>,
  checkpoint: LogCheckpoint,
  context: Parameters<typeof verifyCheckpoint>[1],
): Promise<string> {
  const cosignatures = document?.['witness_signatures']
  if (!Array.isArray(cosignatures)) return ''
  const count = await countWitnesses(cosignatures, {
    checkpoint,
    resolveKey: context.resolveKey,
    isTrustedWitness: () => true,
    now: context.now,
  })
  return `; ${count.count} witness cosignature(s) verify${count.failures.length > 0 ? `, ${count.failures.length} do not` : ''}`
}

async function authorityFromCapabilities(io: CliIo, registryUrl: string): Promise<string> {
  const answer = await getRegistryJson(io, registryUrl, '/.well-known/acdp.json')
  const did = (answer.body as { registry_did?: unknown } | undefined)?.registry_did
  const match = typeof did === 'string' ? /^did:web:([A-Za-z0-9.-]+(?:%3[Aa]\d{1,5})?)$/.exec(did) : null
  if (answer.status !== 200 || !match) {
    throw new CliError(
      EXIT.failure,
      'invalid_response',
      'the registry capabilities carry no did:web registry_did; pass --authority',
    )
  }
  return decodeURIComponent(match[1] as string).toLowerCase()
}

function readState(path: string): Retained | undefined {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
  const value = JSON.parse(text) as Retained
  if (typeof value?.log_id !== 'string' || !Number.isInteger(value.tree_size) || typeof value.root_hash !== 'string') {
    throw usageError(`--state ${path} does not hold a checkpoint`)
  }
  return value
}

function strip(c: Retained): Retained {
  return {
    log_id: c.log_id,
    tree_size: c.tree_size,
    root_hash: c.root_hash,
    ...(c.timestamp ? { timestamp: c.timestamp } : {}),
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolveSleep, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolveSleep()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

function render(authority: string, steps: AuditStep[], ok: boolean): string {
  const lines = [
    `log audit of ${authority}`,
    ...steps.map((step) => `${step.ok ? 'ok  ' : 'FAIL'}  ${step.detail}`),
    '',
    ok ? `consistent: ${steps.length} checkpoint(s) verified` : 'audit FAILED',
  ]
  return lines.map(sanitizeTerminalText).join('\n')
}

function describe(error: unknown): string {
  const details = (error as { code?: string; details?: { reason?: unknown } }) ?? {}
  const reason = details.details?.reason
  return typeof reason === 'string'
    ? `${details.code}/${reason}`
    : error instanceof Error
      ? error.message
      : String(error)
}

/**
 * What to do about a registry without a log: 501 is the RFC-ACDP-0012 answer of a registry that does not run
 * the transparency-log profile, 404 that of a server without the route at all.
 */
function logHint(status: number): string {
  if (status !== 501 && status !== 404) return ''
  return (
    '; this registry keeps no transparency log: its operator enables it with log.enabled = true and a receipt key' +
    ' (receipt.signing_key_seed_b64 or receipt.signing_key_path; docs/registry/configuration.md "Trust layer"),' +
    ' as the dev stack (acdp dev) does'
  )
}
