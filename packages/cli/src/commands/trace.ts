/**
 * `acdp trace <ctx_id>`: assembles the evidence chain behind a context (RFC-ACDP-0006 §2) with the SDK's
 * derived_from walker: the root and every predecessor fetched from its own authority's registry and verified
 * locally, under the four §4.1 traversal controls. A walk a control cut short says so, with the control and the
 * unwalked frontier (fixture fed-010); it never prints as complete.
 */
import {
  authorityOfCtxId,
  missingStages,
  type VerificationReport,
  type WalkedNode,
  type WalkFailure,
  type WalkResult,
  WALK_DEFAULTS,
  walkDerivedFrom,
} from '@acdp/protocol'
import { type Command, parseCommandArgs } from '../command.js'
import { EXIT, usageError } from '../exit-codes.js'
import { sanitizeTerminalText } from '../render/text-table.js'
import { resolveStackTarget } from '../stack-target.js'
import { createDataRefClient } from '../verify/data-ref-client.js'
import { parseRequireOption } from '../verify/require-option.js'
import { guardRegistryCalls } from '../http/wrong-service.js'
import { createProfileLookup } from '../verify/registry-profiles.js'
import { verifyWithEvidence } from '../verify/verify-with-evidence.js'
import { createWalkTransport, parseAuthorityUrls } from '../verify/walk-transport.js'
import { checkBaseUrl, JSON_OPTION, parseIntegerFlag } from './shared-options.js'

/** `acdp trace` (help text below is what `acdp trace --help` prints). */
export const traceCommand: Command = {
  name: 'trace',
  summary: "walk a context's derived_from chain across registries, verifying every node",
  help: `Usage: acdp trace <ctx_id> [--max-depth N] [--max-nodes N] [--max-fanout N] [--timeout-seconds N]
                  [--partial] [--authority-url AUTHORITY=URL]... [--trust-witness DID]... [--require LIST]
                  [--fetch-data] [--registry URL] [--json]

Walks the derived_from graph below <ctx_id> breadth first (RFC-ACDP-0006 §4.1). Each context is fetched from
the registry of ITS OWN authority (acdp://<authority>/...) and verified locally as acdp get --verify does, every
lookup on that same registry: the registry's capabilities name that authority, then schema,
producer_content_hash, key_binding, did_resolution, signature, registry_receipt, log_inclusion (the proof
fetched from GET /log/proof when not served), witness_signatures and key_revocation (the producer's revocations
on that registry), and the DataRefs (data_ref[i]). Prints one line per context with its depth:
  ok    no stage failed; when a stage was not available or not checked, the line ends with what is missing,
        e.g. "(body and signature verified; no registry receipt; ...)"
  FAIL  <title> failed: <stages>       the body verified but the registry's evidence did not (receipt, log
                                       inclusion, cosignatures): still the producer's content, walked through
  FAIL  untrustworthy: <stage> (...)   the body or key failed (hash, signature, revoked key, retired key
                                       without receipt): never used as evidence, never walked through
  FAIL  unresolvable: <reason> (...)   not found, unreachable, unusable registry: not walked through
then a final line: "complete", or "TRUNCATED by <control>" with the unwalked frontier (the ctx_ids whose
subtrees were not walked), and the counts: verified (every stage verified), partial (nothing failed, something
missing) and failed.

Traversal controls (RFC-ACDP-0006 §4.1 defaults):
  --max-depth N         derived_from hops below the root (default ${WALK_DEFAULTS.maxDepth}); deeper: truncated
  --max-nodes N         contexts fetched, root included (default ${WALK_DEFAULTS.maxTotalNodes}); more: the walk fails
  --max-fanout N        derived_from entries followed per context (default ${WALK_DEFAULTS.maxFanoutPerContext}); more: the walk
                        fails, or with --partial the first N are walked and the rest reported as unwalked
  --timeout-seconds N   budget of the whole walk, end to end (default ${WALK_DEFAULTS.totalWalkTimeoutMs / 1000}); over: the walk fails
  --partial             surface a fanout overrun as a truncated result instead of failing

Where registries are:
  --registry URL        base URL of the root's authority (default: ACDP_REGISTRY_URL, the running dev stack,
                        http://127.0.0.1:3000), as for acdp get
  --authority-url AUTHORITY=URL
                        base URL of another authority (repeatable), e.g. a local registry in a test setup
  Any other authority is https://<authority>, through the SSRF-safe client (public addresses only).
  --data-dir DIR        dev-stack data directory to read the registry URL from (default ./data)

Evidence:
  --trust-witness DID   count only this witness's cosignatures (repeatable; default: any that verifies)
  --require LIST        per node, fail unless this evidence verifies: receipt, log, witness[=N] (as acdp get)
  --fetch-data          per node, fetch http(s) DataRef locations through the SSRF-safe client (as acdp get)
  --json                print { complete, truncatedBy?, nodes, failures, truncations?, unwalkedFrontier? }, each
                        node with its stage report (verification: { ok, summary, stages, checks, unchecked, notes })

Exit 0 when the walk is complete and no stage of any context failed; 1 when it was truncated, a context failed
(required evidence missing included), the walk failed (cross_registry_resolution_failed: too many nodes, fanout, timeout, cycle). An
unreachable registry is a FAIL line (unresolvable: outbound_failed), not exit 3.`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      'trace',
      args,
      {
        ...JSON_OPTION,
        'max-depth': { type: 'string' },
        'max-nodes': { type: 'string' },
        'max-fanout': { type: 'string' },
        'timeout-seconds': { type: 'string' },
        partial: { type: 'boolean' },
        'authority-url': { type: 'string', multiple: true },
        'trust-witness': { type: 'string', multiple: true },
        require: { type: 'string', multiple: true },
        'fetch-data': { type: 'boolean' },
        registry: { type: 'string' },
        'data-dir': { type: 'string' },
      },
      { min: 1, max: 1, names: 'one ctx_id' },
    )
    const ctxId = positionals[0]!
    const maxDepth = parseIntegerFlag('max-depth', values['max-depth'], 0, 1000)
    const maxTotalNodes = parseIntegerFlag('max-nodes', values['max-nodes'], 1, 1_000_000)
    const maxFanoutPerContext = parseIntegerFlag('max-fanout', values['max-fanout'], 1, 1000)
    const timeoutSeconds = parseIntegerFlag('timeout-seconds', values['timeout-seconds'], 1, 3600)
    const requirement = parseRequireOption(values.require)
    const registryFlag = checkBaseUrl('registry', values.registry)
    const mapped = parseAuthorityUrls(values['authority-url'] ?? [])
    const rootAuthority = authorityOfCtxId(ctxId)
    if (rootAuthority === undefined) throw usageError(`expected an acdp://<authority>/<uuid> ctx_id, got "${ctxId}"`)
    if (!mapped.has(rootAuthority)) {
      const target = resolveStackTarget(io, {
        registry: registryFlag,
        dataDir: values['data-dir'],
      })
      mapped.set(rootAuthority, target.registryUrl)
    }
    const guard = guardRegistryCalls(io, [...mapped.values()])
    const transport = createWalkTransport(guard.io, mapped)
    const trustedWitnesses = values['trust-witness'] ?? []
    const dataRefs = values['fetch-data'] ? createDataRefClient(io) : undefined
    const notes = new Map<string, string[]>()
    // One capabilities fetch per registry for the whole walk, not one per node.
    const profiles = createProfileLookup({ fetch: transport.fetch, signal: io.signal })
    let result: WalkResult
    try {
      result = await walkDerivedFrom(ctxId, {
        controls: {
          ...(maxDepth === undefined ? {} : { maxDepth }),
          ...(maxTotalNodes === undefined ? {} : { maxTotalNodes }),
          ...(maxFanoutPerContext === undefined ? {} : { maxFanoutPerContext }),
          ...(timeoutSeconds === undefined ? {} : { totalWalkTimeoutMs: timeoutSeconds * 1000 }),
        },
        onOverrun: values.partial ? 'surface-partial-result' : 'abort',
        registryUrlOf: transport.registryUrlOf,
        fetch: transport.fetch,
        signal: io.signal,
        // acdp get --verify's pipeline per node, every lookup on the node's own registry, under the walk's deadline.
        verifyNode: async (envelope, node) => {
          const verified = await verifyWithEvidence(
            { fetch: transport.fetch, signal: node.signal },
            node.registryUrl,
            envelope,
            {
              resolver: node.resolver,
              trustedWitnesses,
              profiles,
              ...(requirement === undefined ? {} : { require: requirement }),
              ...(dataRefs === undefined ? {} : { dataRefs: { client: dataRefs.client, signal: node.signal } }),
            },
          )
          notes.set(node.ctxId, verified.notes)
          return verified.report
        },
      })
    } finally {
      await Promise.all([transport.close(), dataRefs?.close()])
    }
    // The walk reports an unreadable node as a FAIL line; a control plane given as a registry is a usage mistake.
    const wrongService = guard.detected()
    if (wrongService !== undefined) throw wrongService
    io.stdout(values.json ? `${JSON.stringify(toJson(result, notes), null, 2)}\n` : `${renderWalk(result)}\n`)
    const everyStagePassed = result.nodes.every((node) => node.verification.ok)
    return result.complete && result.failures.length === 0 && everyStagePassed ? EXIT.ok : EXIT.failure
  },
}

/** The --json document: the walk without the fetched envelopes (ask acdp get for one), each stage report with its notes. */
function toJson(result: WalkResult, notes: ReadonlyMap<string, string[]>): Record<string, unknown> {
  const withNotes = <T extends { ctxId: string; verification?: VerificationReport }>(entry: T) =>
    entry.verification === undefined
      ? entry
      : { ...entry, verification: { ...entry.verification, notes: notes.get(entry.ctxId) ?? [] } }
  return {
    ...result,
    nodes: result.nodes.map(({ envelope, ...node }) => ({ ...withNotes(node), title: envelope.body['title'] })),
    failures: result.failures.map(withNotes),
  }
}

function renderWalk(result: WalkResult): string {
  type Row = { depth: number; line: string }
  const rows: Row[] = [
    ...result.nodes.map((node) => ({ depth: node.depth, line: nodeLine(node) })),
    ...result.failures.map((failure) => ({ depth: failure.depth, line: failureLine(failure) })),
  ]
  // Stable sort: breadth-first order within a depth, verified contexts before failed ones.
  rows.sort((left, right) => left.depth - right.depth)
  const passed = result.nodes.filter((node) => node.verification.ok)
  const verified = passed.filter((node) => missingStages(node.verification.stages).length === 0).length
  const partial = passed.length - verified
  const failed = result.nodes.length - passed.length + result.failures.length
  // A node without a failed stage but with missing evidence is "partial", never counted as verified.
  const counts = `${verified} verified, ${partial > 0 ? `${partial} partial, ` : ''}${failed} failed`
  const verdict = result.complete
    ? `complete: ${counts}`
    : `TRUNCATED by ${result.truncatedBy}: ${counts}; unwalked frontier (${result.unwalkedFrontier.length}): ${result.unwalkedFrontier.join(' ')}`
  return [...rows.map((row) => row.line), '', verdict].map(sanitizeTerminalText).join('\n')
}

/** A node whose body verified: ok, or FAIL with the evidence stages that failed (it was still walked through). */
function nodeLine(node: WalkedNode): string {
  const title = typeof node.envelope.body['title'] === 'string' ? node.envelope.body['title'] : ''
  const depth = `depth ${String(node.depth).padStart(2)}`
  if (node.verification.ok) {
    const missing = missingStages(node.verification.stages)
    return `ok    ${depth}  ${node.ctxId}  ${title}${missing.length === 0 ? '' : `  (${missing.join('; ')})`}`
  }
  return `FAIL  ${depth}  ${node.ctxId}  ${title}  failed: ${failedStages(node.verification).join(', ')}`
}

function failureLine(failure: WalkFailure): string {
  const others =
    failure.verification === undefined ? [] : failedStages(failure.verification).filter((n) => n !== failure.reason)
  return (
    `FAIL  depth ${String(failure.depth).padStart(2)}  ${failure.ctxId}  ${failure.outcome}: ${failure.reason} (${failure.detail})` +
    (others.length > 0 ? `; also failed: ${others.join(', ')}` : '')
  )
}

function failedStages(report: VerificationReport): string[] {
  return report.stages.filter((stage) => stage.state === 'failed').map((stage) => stage.name)
}
