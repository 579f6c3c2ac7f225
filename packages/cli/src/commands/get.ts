/**
 * `acdp get <ctx_id> [--verify]`: retrieves a context from the registry and, with --verify, checks it locally
 * (schema, content_hash over ProducerContent, key binding, key resolution, signature, then the registry's
 * evidence: receipt, log inclusion, witness cosignatures, the producer's key revocations, and the DataRefs)
 * without trusting the registry's word for any of it. Every stage is printed with its state, the ones that did
 * not run included.
 */
import { authorityOfCtxId, fetchContext, type VerificationReport } from '@acdp/protocol'
import { type Command, parseCommandArgs } from '../command.js'
import { EXIT, usageError } from '../exit-codes.js'
import { sanitizeTerminalText } from '../render/text-table.js'
import { guardRegistryCalls } from '../http/wrong-service.js'
import { renderStageLines } from '../render/verification-text.js'
import { resolveStackTarget } from '../stack-target.js'
import { createDataRefClient } from '../verify/data-ref-client.js'
import { createCliResolver } from '../verify/registry-resolver.js'
import { parseRequireOption } from '../verify/require-option.js'
import { verifyWithEvidence } from '../verify/verify-with-evidence.js'
import { checkBaseUrl, JSON_OPTION } from './shared-options.js'

/** `acdp get` (help text below is what `acdp get --help` prints). */
export const getCommand: Command = {
  name: 'get',
  summary: 'retrieve a context; --verify checks its hash and signature locally',
  help: `Usage: acdp get <ctx_id> [--verify] [--require LIST] [--fetch-data] [--trust-witness DID]... [--registry URL]
                [--json]

Retrieves a context (GET /contexts/{ctx_id}) and prints the registry's answer as JSON.

With --verify, checks it locally and prints one line per stage instead, each in one of four states with why:
  ok             verified
  FAIL           failed
  not available  nothing to check was served (e.g. the registry attaches no receipt)
  not checked    there was something to check and this run did not (e.g. an earlier stage failed first)
Stages: schema, producer_content_hash (recomputed over the body), key_binding (key_id belongs to agent_id),
did_resolution (did:key decoded locally; did:web documents fetched over HTTPS through the SSRF-safe client),
signature, then the registry's evidence: registry_receipt, lineage_head_receipt (when served), log_inclusion (the proof fetched from GET /log/proof
when not served), witness_signatures (the cosignatures the registry serves beside its newest checkpoint, when the
proof reaches that checkpoint), key_revocation (the producer's revocations found by search), and one data_ref[i]
per DataRef (embedded content checked against its content_hash; locations only with --fetch-data).
The last line says "verified: <stages>" only when every stage was verified; otherwise it names what failed
("verification FAILED: <stages>") or what is missing ("body and signature verified; no registry receipt; ...").

Options:
  --verify              verify the context locally
  --require LIST        fail unless this evidence verifies: receipt, log, witness[=N] (N distinct witnesses,
                        default 1); comma separated or repeated, e.g. --require receipt,log,witness=2
  --fetch-data          fetch every http(s) data_refs[].location through the SSRF-safe client (public HTTPS
                        addresses only, same-authority redirects, 1 MiB, 10 s) and check its content_hash
  --trust-witness DID   count only this witness's cosignatures (repeatable; default: any that verifies)
  --registry URL        registry base URL (default: ACDP_REGISTRY_URL, the running dev stack, http://127.0.0.1:3000)
  --data-dir DIR        dev-stack data directory to read the registry URL from (default ./data)
  --json                print { "context": <answer> } or, with --verify, { "context", "verification": { ok, summary,
                        stages: [{ name, state, reason }], checks, unchecked, notes } }

Exit 0 when no stage failed (a "not available" or "not checked" stage does not fail unless --require names it),
1 when a stage failed or required evidence is missing, 2 on a usage error (an unknown --require item), 3 when
the registry cannot be reached.`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      'get',
      args,
      {
        ...JSON_OPTION,
        verify: { type: 'boolean' },
        require: { type: 'string', multiple: true },
        'fetch-data': { type: 'boolean' },
        'trust-witness': { type: 'string', multiple: true },
        registry: { type: 'string' },
        'data-dir': { type: 'string' },
      },
      { min: 1, max: 1, names: 'one ctx_id' },
    )
    const ctxId = positionals[0]!
    const requirement = parseRequireOption(values.require)
    if (!values.verify && (requirement !== undefined || values['fetch-data'])) {
      throw usageError('--require and --fetch-data need --verify')
    }
    const target = resolveStackTarget(io, {
      registry: checkBaseUrl('registry', values.registry),
      dataDir: values['data-dir'],
    })
    const registry = guardRegistryCalls(io, [target.registryUrl]).io
    const { envelope } = await fetchContext(target.registryUrl, ctxId, { fetch: registry.fetch, signal: io.signal })
    if (!values.verify) {
      io.stdout(`${JSON.stringify(values.json ? { context: envelope } : envelope, null, 2)}\n`)
      return EXIT.ok
    }
    const authority =
      typeof envelope.body['ctx_id'] === 'string' ? authorityOfCtxId(envelope.body['ctx_id']) : undefined
    const { resolver, close } = createCliResolver(registry, target.registryUrl, authority)
    const dataRefs = values['fetch-data'] ? createDataRefClient(io) : undefined
    let verified
    try {
      verified = await verifyWithEvidence(registry, target.registryUrl, envelope, {
        resolver,
        trustedWitnesses: values['trust-witness'] ?? [],
        ...(requirement === undefined ? {} : { require: requirement }),
        ...(dataRefs === undefined ? {} : { dataRefs: { client: dataRefs.client, signal: io.signal } }),
      })
    } finally {
      await Promise.all([close(), dataRefs?.close()])
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
  const lines = [
    `ctx_id   ${ctxId}`,
    `title    ${String(body['title'] ?? '')}`,
    `agent    ${String(body['agent_id'] ?? '')}`,
    `status   ${String(state['status'] ?? '')}`,
    '',
    ...renderStageLines(report.stages),
    ...notes.map((note) => `note  ${note}`),
    '',
    report.summary,
  ]
  return lines.map(sanitizeTerminalText).join('\n')
}
