/**
 * `acdp get <ctx_id> [--verify]`: retrieves a context from the registry and, with --verify, checks it locally
 * (schema, content_hash over ProducerContent, key binding, key resolution, signature, then the registry's
 * evidence: receipt, log inclusion, witness cosignatures, the producer's key revocations) without trusting the
 * registry's word for any of it.
 */
import { authorityOfCtxId, fetchContext, type VerificationReport } from '@acdp/protocol'
import { type Command, parseCommandArgs } from '../command.js'
import { EXIT } from '../exit-codes.js'
import { sanitizeTerminalText } from '../render/text-table.js'
import { resolveStackTarget } from '../stack-target.js'
import { createCliResolver } from '../verify/registry-resolver.js'
import { verifyWithEvidence } from '../verify/verify-with-evidence.js'
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
    const authority =
      typeof envelope.body['ctx_id'] === 'string' ? authorityOfCtxId(envelope.body['ctx_id']) : undefined
    const { resolver, close } = createCliResolver(io, target.registryUrl, authority)
    let verified
    try {
      verified = await verifyWithEvidence(io, target.registryUrl, envelope, {
        resolver,
        trustedWitnesses: values['trust-witness'] ?? [],
      })
    } finally {
      await close()
    }
    const { report, notes } = verified
    if (values.json) {
      io.stdout(`${JSON.stringify({ context: envelope, verification: { ...report, notes } }, null, 2)}\n`)
    } else {
      io.stdout(`${renderReport(ctxId, envelope, report, notes)}\n`)
    }
    return report.ok ? EXIT.ok : EXIT.failure
  },
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
