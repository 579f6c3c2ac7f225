/**
 * The context page's way into the lineage explorer: the context's `lineage_id` read through the federation proxy
 * (the same GET /contexts/{ctx_id} the inspector makes), linked with the registry that serves it.
 */
import { href } from '../router.js'
import { useApi } from '../use-api.js'

export function LineageLink({ ctxId }: { ctxId: string }) {
  const authority = /^acdp:\/\/([^/]+)\//.exec(ctxId)?.[1]
  const loaded = useApi(
    (client) => client.get<{ body?: { lineage_id?: unknown } }>(`/contexts/${encodeURIComponent(ctxId)}`),
    [ctxId],
  )
  const lineageId = loaded.data?.body?.lineage_id
  if (authority === undefined || typeof lineageId !== 'string') return null
  return (
    <p>
      <a
        href={`${href('lineages', lineageId)}?registry=${encodeURIComponent(authority)}`}
        data-lineage-link={lineageId}
      >
        Every version of this lineage
      </a>
    </p>
  )
}
