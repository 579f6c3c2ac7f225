/**
 * Runs (product spec "Run", "States and transitions", "Runs" endpoints): start and completion notifications
 * (HMAC routes), run reads, the lineage graph and the run's event history.
 */
import type { ControlPlaneDeps } from '../core/deps.js'
import { ControlPlaneError } from '../core/errors.js'
import { formatOptionalTimestamp, formatTimestamp, parseTimestamp } from '../core/http/wire-time.js'
import type { EventQuery, RunQuery, RunRecord, RunStatus } from '../store/store.js'
import type { RunLineage, RunView } from '../response-schemas/runs.js'
import { decodeEventCursor } from '../events/event-cursor.js'

export type { RunView }

/** A lineage node's status, in the reference stack's vocabulary (RFC-ACDP-0004 §4). */
export type LineageNodeStatus = 'active' | 'superseded' | 'retracted'

/** Retraction dominates supersession (RFC-ACDP-0013 §7.2). */
export function lineageNodeStatus(publication: { retracted: boolean; superseded: boolean }): LineageNodeStatus {
  if (publication.retracted) return 'retracted'
  return publication.superseded ? 'superseded' : 'active'
}

export function toRunView(run: RunRecord): RunView {
  return {
    runId: run.runId,
    tenantId: run.tenantId,
    scenarioId: run.scenarioId,
    status: run.status,
    startedAt: formatTimestamp(run.startedAt),
    completedAt: formatOptionalTimestamp(run.completedAt),
    inputs: parseStoredJson(run.inputsJson),
    result: parseStoredJson(run.resultJson),
    eventsCount: run.eventsCount,
    contextsCount: run.contextsCount,
    registries: run.registries,
    updatedAt: formatTimestamp(run.updatedAt),
  }
}

function parseStoredJson(text: string | null): unknown {
  return text === null ? null : JSON.parse(text)
}

/** A page of GET /runs, written to the wire by events/list-json.ts (`runPageJson`). */
export interface RunRecordPage {
  runs: RunRecord[]
  total: number
  limit: number
  offset: number
}

/** A validated POST /runs/started body. */
export interface RunStartNotice {
  run_id: string
  scenario_id: string
  /** RFC 3339, attacker-controlled until parsed. */
  started_at?: string
  inputs?: unknown
}

/**
 * Records a run start (creates the run as `running`, or attributes an existing one to the scenario).
 *
 * @throws ControlPlaneError VALIDATION_ERROR for a malformed started_at.
 */
export async function startRun(deps: ControlPlaneDeps, tenantId: string, notice: RunStartNotice): Promise<void> {
  let startedAt: number | null = null
  if (notice.started_at !== undefined) {
    const ms = parseTimestamp(notice.started_at)
    if (ms === undefined) throw new ControlPlaneError('VALIDATION_ERROR', 'started_at must be an RFC 3339 date-time')
    startedAt = ms
  }
  await deps.store.startRun({
    tenantId,
    runId: notice.run_id,
    scenarioId: notice.scenario_id,
    startedAt,
    inputs: notice.inputs === undefined ? null : JSON.stringify(notice.inputs),
    now: deps.clock().getTime(),
  })
}

/** Moves a run to its terminal status (product spec: any state → the status named by the body). */
export async function completeRun(
  deps: ControlPlaneDeps,
  tenantId: string,
  runId: string,
  body: { status: Exclude<RunStatus, 'running'>; result?: unknown },
): Promise<void> {
  await deps.store.completeRun({
    tenantId,
    runId,
    status: body.status,
    result: body.result === undefined ? null : JSON.stringify(body.result),
    now: deps.clock().getTime(),
  })
}

export async function listRuns(
  deps: ControlPlaneDeps,
  request: {
    tenantId: string
    status?: RunStatus
    scenarioId?: string
    /** RFC 3339; runs started at or after it (attacker-controlled text). */
    startedAfter?: string
    /** RFC 3339; runs started before it (attacker-controlled text). */
    startedBefore?: string
    limit: number
    offset: number
  },
): Promise<RunRecordPage> {
  const { startedAfter, startedBefore, ...rest } = request
  const query: RunQuery = { ...rest }
  if (startedAfter !== undefined) query.startedFrom = readRunTime('startedAfter', startedAfter)
  if (startedBefore !== undefined) query.startedBefore = readRunTime('startedBefore', startedBefore)
  const { runs, total } = await deps.store.listRuns(query)
  return { runs, total, limit: query.limit, offset: query.offset }
}

function readRunTime(name: string, value: string): number {
  const ms = parseTimestamp(value)
  if (ms === undefined) throw new ControlPlaneError('VALIDATION_ERROR', `${name} must be an RFC 3339 date-time`)
  return ms
}

/** @throws ControlPlaneError RUN_NOT_FOUND when the run does not exist in the tenant. */
export async function getRun(deps: ControlPlaneDeps, tenantId: string, runId: string): Promise<RunView> {
  return toRunView(await requireRun(deps, tenantId, runId))
}

/**
 * The run's lineage graph: its context_published events in event-time order (one node per ctx id; `step` is the
 * 1-based position), the edges recorded from their `derived_from`, and each node's current retraction state.
 *
 * @throws ControlPlaneError RUN_NOT_FOUND when the run does not exist in the tenant.
 */
export async function getRunLineage(deps: ControlPlaneDeps, tenantId: string, runId: string): Promise<RunLineage> {
  await requireRun(deps, tenantId, runId)
  const [publications, edges] = await Promise.all([
    deps.store.listRunPublications(tenantId, runId),
    deps.store.listRunEdges(tenantId, runId),
  ])
  return {
    runId,
    nodes: publications.map((p, index) => ({
      ctxId: p.ctxId,
      agentId: p.agentId,
      contextType: p.contextType,
      visibility: p.visibility,
      registryAuthority: p.registryAuthority,
      lineageId: p.lineageId,
      version: p.version,
      step: index + 1,
      retracted: p.retracted,
      status: lineageNodeStatus(p),
    })),
    edges,
  }
}

/**
 * The run's events in event-time order (oldest first), keyset-paged: the store query of the page
 * (events/event-page-reader.ts reads and writes it).
 *
 * @throws ControlPlaneError RUN_NOT_FOUND; VALIDATION_ERROR for a malformed cursor.
 */
export async function listRunEvents(
  deps: ControlPlaneDeps,
  request: { tenantId: string; runId: string; eventType?: string; cursor?: string; limit: number },
): Promise<EventQuery> {
  await requireRun(deps, request.tenantId, request.runId)
  return {
    tenantId: request.tenantId,
    runId: request.runId,
    order: 'asc',
    limit: request.limit,
    ...(request.eventType === undefined ? {} : { eventType: request.eventType }),
    ...(request.cursor === undefined ? {} : { after: decodeEventCursor(request.cursor) }),
  }
}

async function requireRun(deps: ControlPlaneDeps, tenantId: string, runId: string): Promise<RunRecord> {
  const run = await deps.store.getRun(tenantId, runId)
  if (run === undefined) throw new ControlPlaneError('RUN_NOT_FOUND', 'run not found')
  return run
}
