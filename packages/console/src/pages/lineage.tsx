/**
 * Lineage explorer (`#/lineages/<lineage_id>?registry=<authority>`): every version of a lineage as its registry
 * serves it (GET /registries/:authority/lineages/:lineageId), which one is current, the lineage head receipt
 * verified in the browser against the registry's relayed DID document, and the lineage's history over time —
 * each version's publication and supersession, and every retraction and republish from the versions'
 * lifecycle events. Reached from the context page.
 */
import type { RegistryDidDocument } from '../api/types.js'
import { ContextLink } from '../components/context-link.js'
import { ErrorPanel, Loading, Section, StatusBadge, Time, VerdictMark } from '../components/ui.js'
import { type HeadVerdict, verifyHeadReceipt } from '../lineage/head-receipt.js'
import { fetchLineage, registryBase } from '../lineage/fetch-lineage.js'
import { type LineageVersion, lineageHistory, readVersions } from '../lineage/lineage-history.js'
import { useApi } from '../use-api.js'

export function LineagePage({ lineageId, registry }: { lineageId: string; registry: string | null }) {
  if (registry === null) {
    return (
      <>
        <h1>Lineage</h1>
        <p class="error" role="alert">
          This link names no registry. Open the lineage from a context page, which knows where it lives.
        </p>
      </>
    )
  }
  return <Explorer lineageId={lineageId} registry={registry} />
}

function Explorer({ lineageId, registry }: { lineageId: string; registry: string }) {
  const loaded = useApi(
    async (client) => {
      const [lineage, didDocument] = await Promise.all([
        fetchLineage(client, registry, lineageId),
        client.get<RegistryDidDocument>(`${registryBase(registry)}/did-document`).catch(() => undefined),
      ])
      const head = await verifyHeadReceipt(lineage.current, registry, lineageId, didDocument, new Date())
      return { lineage, head }
    },
    [lineageId, registry],
  )
  return (
    <>
      <h1>Lineage</h1>
      <p class="mono wrap">{lineageId}</p>
      <p class="muted">Served by {registry}</p>
      {loaded.error ? (
        <ErrorPanel error={loaded.error} what="the lineage" />
      ) : loaded.data === undefined ? (
        <Loading what="the lineage" />
      ) : (
        <Loaded
          versions={readVersions(loaded.data.lineage.versions)}
          current={loaded.data.lineage.current}
          head={loaded.data.head}
        />
      )}
    </>
  )
}

function currentCtxId(current: unknown): string | undefined {
  const id = (current as { body?: { ctx_id?: unknown } } | null)?.body?.ctx_id
  return typeof id === 'string' ? id : undefined
}

function Loaded({ versions, current, head }: { versions: LineageVersion[]; current: unknown; head: HeadVerdict }) {
  const currentId = currentCtxId(current)
  const history = lineageHistory(versions)
  return (
    <>
      <Section title="Current version">
        {currentId === undefined ? (
          <p data-current="none">No current version: every version is superseded or retracted.</p>
        ) : (
          <p data-current={currentId}>
            <ContextLink ctxId={currentId} />
          </p>
        )}
        <p class="head-receipt" data-head-mark={head.mark}>
          Lineage head receipt: <VerdictMark mark={head.mark} /> <span class="muted">{head.detail}</span>
        </p>
      </Section>
      <Section title="Versions">
        <div class="table-scroll">
          <table>
            <caption class="visually-hidden">Every version of the lineage, oldest first</caption>
            <thead>
              <tr>
                <th scope="col" class="num">
                  Version
                </th>
                <th scope="col">Title</th>
                <th scope="col">Status</th>
                <th scope="col">Published</th>
                <th scope="col">Context</th>
              </tr>
            </thead>
            <tbody>
              {versions.map((v) => (
                <tr key={v.ctxId} data-version={v.version} data-status={v.status}>
                  <td class="num">
                    {v.version}
                    {v.ctxId === currentId && <strong> (current)</strong>}
                  </td>
                  <td class="wrap">{v.title}</td>
                  <td>
                    <StatusBadge status={v.status} />
                  </td>
                  <td>
                    <Time value={v.createdAt} />
                  </td>
                  <td class="mono">
                    <ContextLink ctxId={v.ctxId} max={28} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Section>
      <Section title="History">
        <ol class="lineage-history">
          {history.map((entry, i) => (
            <li key={i} data-kind={entry.kind}>
              <Time value={entry.at} /> — <strong>{entry.kind}</strong> v{entry.version}
              {entry.detail !== '' && <span class="muted"> · {entry.detail}</span>}
            </li>
          ))}
        </ol>
      </Section>
    </>
  )
}
