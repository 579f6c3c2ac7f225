/**
 * `acdp get <ctx_id> [--verify]`: retrieves a context from the registry and, with --verify, checks it locally
 * (schema, content_hash over ProducerContent, key binding, key resolution, signature) without trusting the
 * registry's word for any of it.
 */
import {
  createOutboundClient,
  DidResolver,
  fetchContext,
  MAX_DID_DOCUMENT_BYTES,
  type VerificationReport,
  verifyContext,
} from '@acdp/protocol'
import { type Command, parseCommandArgs } from '../command.js'
import { EXIT } from '../exit-codes.js'
import { sanitizeTerminalText } from '../render/text-table.js'
import { resolveStackTarget } from '../stack-target.js'
import { checkBaseUrl, JSON_OPTION } from './shared-options.js'

/** `acdp get` (help text below is what `acdp get --help` prints). */
export const getCommand: Command = {
  name: 'get',
  summary: 'retrieve a context; --verify checks its hash and signature locally',
  help: `Usage: acdp get <ctx_id> [--verify] [--registry URL] [--json]

Retrieves a context (GET /contexts/{ctx_id}) and prints the registry's answer as JSON.

With --verify, checks it locally and prints one line per stage instead: schema, producer_content_hash
(recomputed over the body), key_binding (key_id belongs to agent_id), did_resolution (did:key decoded
locally; did:web documents fetched over HTTPS through the SSRF-safe client) and signature. Evidence the
verifier does not check yet (registry receipts, log inclusion) is listed as "not checked".
Exit 0 when every stage passed, 1 when one failed.

Options:
  --verify              verify the context locally
  --registry URL        registry base URL (default: ACDP_REGISTRY_URL, the running dev stack, http://127.0.0.1:3000)
  --data-dir DIR        dev-stack data directory to read the registry URL from (default ./data)
  --json                print { "context": <answer> } or, with --verify, { "context", "verification": { ok, checks, unchecked } }`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      'get',
      args,
      { ...JSON_OPTION, verify: { type: 'boolean' }, registry: { type: 'string' }, 'data-dir': { type: 'string' } },
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
    const report = await verifyWithPublicResolver(envelope)
    if (values.json) {
      io.stdout(`${JSON.stringify({ context: envelope, verification: report }, null, 2)}\n`)
    } else {
      io.stdout(`${renderReport(ctxId, envelope, report)}\n`)
    }
    return report.ok ? EXIT.ok : EXIT.failure
  },
}

/**
 * Verifies with a resolver that decodes did:key locally and fetches did:web documents through the outbound
 * policy client with production rules (HTTPS only, public addresses only, 64 KB cap).
 */
async function verifyWithPublicResolver(envelope: Record<string, unknown>): Promise<VerificationReport> {
  const client = createOutboundClient({ allowCidrs: [], userAgent: 'acdp-cli' })
  try {
    const resolver = new DidResolver({
      fetchDidDocument: async (url) => {
        const response = await client.request(url, { maxBodyBytes: MAX_DID_DOCUMENT_BYTES })
        return { status: response.status, body: response.body }
      },
    })
    return await verifyContext(envelope, { resolver })
  } finally {
    await client.close()
  }
}

function renderReport(ctxId: string, envelope: Record<string, unknown>, report: VerificationReport): string {
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
    '',
    report.ok ? 'verified: hash and signature check out' : 'verification FAILED',
  ]
  return lines.map(sanitizeTerminalText).join('\n')
}
