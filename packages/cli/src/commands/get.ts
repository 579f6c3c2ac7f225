/**
 * `acdp get <ctx_id> [--verify]`: retrieves a context from the registry and, with --verify, checks it locally
 * (schema, content_hash over ProducerContent, key binding, key resolution, signature, then the registry's
 * evidence: receipt, log inclusion, witness cosignatures, the producer's key revocations) without trusting the
 * registry's word for any of it.
 */
import {
  authorityOfCtxId,
  fetchContext,
  type LogCheckpoint,
  type VerificationReport,
  verifyContext,
} from '@acdp/protocol'
import { type CliIo, type Command, parseCommandArgs } from '../command.js'
import { EXIT } from '../exit-codes.js'
import { sanitizeTerminalText } from '../render/text-table.js'
import { resolveStackTarget } from '../stack-target.js'
import { findProducerRevocations } from '../verify/key-revocations.js'
import { getRegistryJson } from '../verify/registry-fetch.js'
import { createCliResolver } from '../verify/registry-resolver.js'
import { checkBaseUrl, JSON_OPTION } from './shared-options.js'

/** `acdp get` (help text below is what `acdp get --help` prints). */
export const getCommand: Command = {
  name: 'get',
  summary: 'retrieve a context; --verify checks its hash and signature locally',
  help: `Usage: acdp get <ctx_id> [--verify] [--trust-witness DID]... [--registry URL] [--json]

Retrieves a context (GET /contexts/{ctx_id}) and prints the registry's answer as JSON.

With --verify, checks it locally and prints one line per stage instead: schema, producer_content_hash
(recomputed over the body), key_binding (key_id belongs to agent_id), did_resolution (did:key decoded
locally; did:web documents fetched over HTTPS through the SSRF-safe client), signature, then the registry's
evidence: registry_receipt, log_inclusion (the proof fetched from GET /log/proof when not served),
witness_signatures (the cosignatures the registry serves beside its newest checkpoint, when the proof
reaches that checkpoint) and key_revocation. Members no stage checks are listed as "not checked".
Exit 0 when every stage passed, 1 when one failed.

Options:
  --verify              verify the context locally
  --trust-witness DID   count only this witness's cosignatures (repeatable; default: any that verifies)
  --registry URL        registry base URL (default: ACDP_REGISTRY_URL, the running dev stack, http://127.0.0.1:3000)
  --data-dir DIR        dev-stack data directory to read the registry URL from (default ./data)
  --json                print { "context": <answer> } or, with --verify, { "context", "verification": { ok, checks, unchecked } }`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      'get',
      args,
      {
        ...JSON_OPTION,
        verify: { type: 'boolean' },
        'trust-witness': { type: 'string', multiple: true },
        registry: { type: 'string' },
        'data-dir': { type: 'string' },
      },
      { min: 1, max: 1, names: 'one ctx_id' },
    )
    const ctxId = positionals[0]!
    const target = resolveStackTarget(io, {
      registry: checkBaseUrl('registry', values.registry),
      dataDir: values['data-dir'],
    })
    const { envelope } = await fetchContext(target.registryUrl, ctxId, { fetch: io.fetch, signal: io.signal })
    if (!values.verify) {
      io.stdout(`${JSON.stringify(values.json ? { context: envelope } : envelope, null, 2)}\n`)
      return EXIT.ok
    }
    const { report, notes } = await verifyWithEvidence(io, target.registryUrl, envelope, values['trust-witness'] ?? [])
    if (values.json) {
      io.stdout(`${JSON.stringify({ context: envelope, verification: { ...report, notes } }, null, 2)}\n`)
    } else {
      io.stdout(`${renderReport(ctxId, envelope, report, notes)}\n`)
    }
    return report.ok ? EXIT.ok : EXIT.failure
  },
}

/**
 * Verifies the context and the registry's evidence. The inclusion proof is fetched when the answer carries a
 * receipt but no proof; the producer's revocations are looked up by search. Both lookups are best effort: a
 * registry without them (404/501) just leaves those stages out, which the notes say.
 */
async function verifyWithEvidence(
  io: CliIo,
  registryUrl: string,
  fetched: Record<string, unknown>,
  trustedWitnesses: string[],
): Promise<{ report: VerificationReport; notes: string[] }> {
  const envelope = { ...fetched }
  const body = (envelope['body'] ?? {}) as Record<string, unknown>
  const authority = typeof body['ctx_id'] === 'string' ? authorityOfCtxId(body['ctx_id']) : undefined
  const notes: string[] = []
  const { resolver, close } = createCliResolver(io, registryUrl, authority)
  try {
    if (envelope['registry_receipt'] !== undefined && envelope['log_inclusion'] === undefined && authority) {
      notes.push(...(await attachLogEvidence(io, registryUrl, String(body['ctx_id']), envelope)))
    }
    let revocations
    if (typeof body['agent_id'] === 'string') {
      const lookup = await findProducerRevocations(io, registryUrl, body['agent_id'], authority, resolver)
      revocations = lookup.revocations
      notes.push(lookup.note)
    }
    const report = await verifyContext(envelope, {
      resolver,
      evidence: {
        now: new Date(),
        trustedWitnesses,
        ...(revocations === undefined ? {} : { revocations }),
      },
    })
    return { report, notes }
  } finally {
    await close()
  }
}

/**
 * Adds `log_inclusion` (and, when a witness cosigned it, `witness_signatures`) to `envelope`. A registry that
 * aggregates cosignatures serves them beside its newest checkpoint only (RFC-ACDP-0015 §6.1), so the proof is
 * asked at that witnessed size when the context is already in it; otherwise at the current size, without
 * cosignatures. The cosignatures are attached only over the exact checkpoint the proof reaches (same log, size,
 * root); verifyContext then checks them against it. Returns the notes to print.
 */
async function attachLogEvidence(
  io: CliIo,
  registryUrl: string,
  ctxId: string,
  envelope: Record<string, unknown>,
): Promise<string[]> {
  const notes: string[] = []
  const witnessed =
    envelope['witness_signatures'] === undefined ? await fetchWitnessedCheckpoint(io, registryUrl) : undefined
  const proofPath = `/log/proof?ctx_id=${encodeURIComponent(ctxId)}`
  let proof =
    witnessed === undefined
      ? undefined
      : await getRegistryJson(io, registryUrl, `${proofPath}&tree_size=${witnessed.checkpoint.tree_size}`)
  if (proof !== undefined && proof.status !== 200) {
    notes.push(
      `the newest witnessed checkpoint (tree size ${witnessed?.checkpoint.tree_size}) does not include this context yet`,
    )
    proof = undefined
  }
  proof ??= await getRegistryJson(io, registryUrl, proofPath)
  if (proof.status !== 200 || typeof proof.body !== 'object' || proof.body === null) {
    notes.push(`no inclusion proof (GET /log/proof answered ${proof.status})`)
    return notes
  }
  const { leaf: _echoed, ...inclusion } = proof.body as Record<string, unknown>
  envelope['log_inclusion'] = inclusion
  notes.push('inclusion proof fetched from GET /log/proof')
  const reached = inclusion['log_checkpoint'] as Partial<LogCheckpoint> | undefined
  if (
    witnessed !== undefined &&
    reached !== undefined &&
    reached.log_id === witnessed.checkpoint.log_id &&
    reached.tree_size === witnessed.checkpoint.tree_size &&
    reached.root_hash === witnessed.checkpoint.root_hash
  ) {
    envelope['witness_signatures'] = witnessed.witnessSignatures
    notes.push('witness cosignatures fetched from GET /log/checkpoint')
  }
  return notes
}

/** The registry's newest checkpoint when it is served with witness cosignatures (best effort: else undefined). */
async function fetchWitnessedCheckpoint(
  io: CliIo,
  registryUrl: string,
): Promise<{ checkpoint: LogCheckpoint; witnessSignatures: unknown[] } | undefined> {
  const answer = await getRegistryJson(io, registryUrl, '/log/checkpoint')
  const body = answer.body as { log_checkpoint?: unknown; witness_signatures?: unknown } | undefined
  if (answer.status !== 200 || typeof body !== 'object' || body === null) return undefined
  const checkpoint = body.log_checkpoint as LogCheckpoint | undefined
  if (typeof checkpoint !== 'object' || checkpoint === null || typeof checkpoint.tree_size !== 'number')
    return undefined
  if (!Array.isArray(body.witness_signatures) || body.witness_signatures.length === 0) return undefined
  return { checkpoint, witnessSignatures: body.witness_signatures }
}

function renderReport(
  ctxId: string,
  envelope: Record<string, unknown>,
  report: VerificationReport,
  notes: string[],
): string {
  const body = (envelope['body'] ?? {}) as Record<string, unknown>
  const state = (envelope['registry_state'] ?? {}) as Record<string, unknown>
  const width = Math.max(...report.checks.map((check) => check.name.length))
  const lines = [
    `ctx_id   ${ctxId}`,
    `title    ${String(body['title'] ?? '')}`,
    `agent    ${String(body['agent_id'] ?? '')}`,
    `status   ${String(state['status'] ?? '')}`,
    '',
    ...report.checks.map((check) => `${check.ok ? 'ok  ' : 'FAIL'}  ${check.name.padEnd(width)}  ${check.detail}`),
    ...report.unchecked.map((member) => `--    ${member.padEnd(width)}  present, not checked by this verifier`),
    ...notes.map((note) => `note  ${note}`),
    '',
    report.ok ? `verified: ${report.checks.map((check) => check.name).join(', ')}` : 'verification FAILED',
  ]
  return lines.map(sanitizeTerminalText).join('\n')
}
