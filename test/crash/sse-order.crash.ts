/**
 * Crash: SSE order and resume (docs/control-plane/streams.md "Ordering and resume"), with the real built bin.
 * On PostgreSQL two instances share one database, each ingesting from several connections; a continuous client
 * stays on the first one and a client reconnecting every 300 ms with the last id it received alternates between
 * both. The second instance is SIGKILLed half-way (its open transactions abort: permanent holes in the id
 * sequence) and restarted. On SQLite the single instance is SIGKILLed and restarted under the resuming client.
 * Afterwards every stored event must have reached the clients exactly once, every stream in id order.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { crashBackendKinds, openCrashBackend } from './backends.js'
import {
  CRASH_AUTH,
  controlPlaneSpec,
  crashCtxId,
  listRunEvents,
  publishBody,
  signedPost,
} from './control-plane-scenario.js'
import { freePort, ServiceProcess } from './service-process.js'
import { type Received, readStream, streamFaults as faults } from '../support/sse-reader.js'

const INGEST_CONNECTIONS = Number(process.env.CRASH_CONNECTIONS ?? 8)
const RECONNECT_MS = 300
const LOAD_BEFORE_KILL_MS = 2500
const LOAD_AFTER_RESTART_MS = 2000

/** Ingests back to back from `connections` connections until `isStopped()` or the instance dies. */
async function ingestLoad(
  baseUrl: string,
  label: string,
  runIds: Set<string>,
  connections: number,
  isStopped: () => boolean,
) {
  await Promise.all(
    Array.from({ length: connections }, async (_, index) => {
      const runId = `sse-${label}-${index}-${randomUUID()}`
      runIds.add(runId)
      while (!isStopped()) {
        try {
          const body = publishBody({ eventId: randomUUID(), ctxId: crashCtxId(), runId })
          const answer = await signedPost(`${baseUrl}/ingest/acdp`, body, { 'x-run-id': runId })
          await answer.arrayBuffer()
        } catch {
          return
        }
      }
    }),
  )
}

describe.each(crashBackendKinds())('crash: SSE order and resume on %s', (kind) => {
  it('delivers every stored event once, in id order, across a SIGKILL', async () => {
    const backend = await openCrashBackend(kind, 'sse-order')
    const instances = await Promise.all(
      (kind === 'postgres' ? [0, 1] : [0]).map(
        async () => new ServiceProcess(controlPlaneSpec(backend, await freePort())),
      ),
    )
    const survivor = instances[0] as ServiceProcess
    const doomed = instances[instances.length - 1] as ServiceProcess
    const abort = new AbortController()
    const runIds = new Set<string>()
    try {
      // One after the other: the first start runs the migrations.
      for (const instance of instances) await instance.start()
      const continuous: Received = { eventIds: [], frameIds: [], connections: 0 }
      const continuousDone =
        kind === 'postgres' ? readStream(survivor.baseUrl, undefined, continuous, abort.signal, CRASH_AUTH) : undefined
      const resuming: Received = { eventIds: [], frameIds: [], connections: 0 }
      let isResumingStopped = false
      const resumingDone = (async () => {
        let lastId: string | undefined = '0'
        for (let turn = 0; !isResumingStopped; turn++) {
          const instance = instances[turn % instances.length] as ServiceProcess
          const pace = new AbortController()
          const timer = setTimeout(() => pace.abort(), RECONNECT_MS)
          const before = resuming.connections
          lastId = await readStream(
            instance.baseUrl,
            lastId,
            resuming,
            AbortSignal.any([pace.signal, abort.signal]),
            CRASH_AUTH,
          )
          clearTimeout(timer)
          // Refused (the instance is down): try again shortly, on the other one when there is one.
          if (resuming.connections === before) await new Promise((resolve) => setTimeout(resolve, 50))
        }
      })()

      let isLoadStopped = false
      const loadOf = (instance: ServiceProcess, label: string) =>
        ingestLoad(instance.baseUrl, label, runIds, INGEST_CONNECTIONS, () => isLoadStopped)
      const first = instances.map((instance, index) => loadOf(instance, `i${index}-a`))
      await new Promise((resolve) => setTimeout(resolve, LOAD_BEFORE_KILL_MS))
      await doomed.kill()
      await doomed.start()
      const second = [loadOf(doomed, 'restarted')]
      await new Promise((resolve) => setTimeout(resolve, LOAD_AFTER_RESTART_MS))
      isLoadStopped = true
      await Promise.all([...first, ...second])

      // A last event on the survivor: both clients must reach it (then nothing earlier is still on its way).
      const markerRun = `sse-marker-${randomUUID()}`
      runIds.add(markerRun)
      const marker = randomUUID()
      const answer = await signedPost(
        `${survivor.baseUrl}/ingest/acdp`,
        publishBody({ eventId: marker, ctxId: crashCtxId(), runId: markerRun }),
        { 'x-run-id': markerRun },
      )
      expect(answer.status).toBeLessThan(300)
      const deadline = Date.now() + 30_000
      const watched = kind === 'postgres' ? [continuous, resuming] : [resuming]
      while (Date.now() < deadline && watched.some((r) => !r.eventIds.includes(marker))) {
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      isResumingStopped = true
      abort.abort()
      await Promise.all([resumingDone, continuousDone])

      const stored: string[] = []
      for (const runId of runIds) {
        for (const event of await listRunEvents(survivor.baseUrl, runId, CRASH_AUTH)) {
          if (event.eventType === 'context_published') stored.push(event.eventId ?? '')
        }
      }
      console.log(
        `[crash sse-order ${kind}] ${stored.length} events stored; resuming: ${resuming.connections} connections, ` +
          `${JSON.stringify(faults(resuming, stored))}` +
          (kind === 'postgres' ? `; continuous: ${JSON.stringify(faults(continuous, stored))}` : ''),
      )
      expect(stored.length).toBeGreaterThan(500)
      expect(resuming.connections).toBeGreaterThan(5)
      for (const received of watched) {
        expect(faults(received, stored)).toEqual({ missing: 0, repeated: 0, unknown: 0, inversions: 0 })
      }
    } finally {
      abort.abort()
      for (const instance of instances) await instance.stop()
      await backend.dispose()
    }
  })
})
