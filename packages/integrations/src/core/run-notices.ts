/**
 * The control plane's run notices (POST /runs/started, POST /runs/:runId/complete), authenticated like ingest:
 * an HMAC over the exact bytes sent in the plain, timestamped and V2 forms (docs/control-plane/webhooks.md), so
 * a control plane that requires the timestamped or bound form accepts them.
 */
import { signTimestampedWebhook, signWebhookBody, signWebhookV2, WEBHOOK_HEADERS } from '@acdp/protocol'
import type { ControlPlaneRunTarget } from './recorder-config.js'

export type RunOutcome = 'completed' | 'failed' | 'cancelled'

/** POST /runs/started. @throws Error naming the control plane's answer when it is not 2xx. */
export async function sendRunStarted(
  controlPlane: ControlPlaneRunTarget,
  fetchFn: typeof globalThis.fetch,
  run: { runId: string; scenarioId: string; inputs?: unknown },
): Promise<void> {
  await postSigned(controlPlane, fetchFn, '/runs/started', {
    run_id: run.runId,
    scenario_id: run.scenarioId,
    started_at: new Date().toISOString(),
    ...(run.inputs === undefined ? {} : { inputs: run.inputs }),
    ...authority(controlPlane),
  })
}

/** POST /runs/:runId/complete; V2 binds the path's run id. */
export async function sendRunCompleted(
  controlPlane: ControlPlaneRunTarget,
  fetchFn: typeof globalThis.fetch,
  runId: string,
  outcome: { status: RunOutcome; result?: unknown },
): Promise<void> {
  await postSigned(
    controlPlane,
    fetchFn,
    `/runs/${encodeURIComponent(runId)}/complete`,
    {
      status: outcome.status,
      ...(outcome.result === undefined ? {} : { result: outcome.result }),
      ...authority(controlPlane),
    },
    runId,
  )
}

function authority(controlPlane: ControlPlaneRunTarget): Record<string, string> {
  return controlPlane.registryAuthority === undefined ? {} : { registry_authority: controlPlane.registryAuthority }
}

async function postSigned(
  controlPlane: ControlPlaneRunTarget,
  fetchFn: typeof globalThis.fetch,
  path: string,
  payload: unknown,
  pathRunId?: string,
): Promise<void> {
  const rawBody = JSON.stringify(payload)
  const nowSeconds = Math.floor(Date.now() / 1000)
  const { runSecret: secret, tenantId } = controlPlane
  const url = `${controlPlane.url.replace(/\/+$/, '')}${path}`
  const response = await fetchFn(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(tenantId === undefined ? {} : { 'x-tenant-id': tenantId }),
      [WEBHOOK_HEADERS.signature]: signWebhookBody(secret, rawBody),
      [WEBHOOK_HEADERS.timestamp]: String(nowSeconds),
      [WEBHOOK_HEADERS.signatureTimestamped]: signTimestampedWebhook(secret, nowSeconds, rawBody),
      [WEBHOOK_HEADERS.signatureV2]: signWebhookV2(
        secret,
        nowSeconds,
        { tenantId, runId: pathRunId, eventId: undefined },
        rawBody,
      ),
    },
    body: rawBody,
    signal: AbortSignal.timeout(10_000),
  })
  if (!response.ok) {
    const text = (await response.text().catch(() => '')).slice(0, 500)
    throw new Error(`control plane answered ${response.status} to POST ${path}: ${text}`)
  }
  await response.body?.cancel()
}
