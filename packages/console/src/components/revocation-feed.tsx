/**
 * The token revocation feed (GET /auth/revocations, admin): revoked tokens oldest first, as peers poll it; "Show
 * more" follows `next_cursor`. Entries carry only the token's `jti`, subject, issuer and expiry, never the token.
 */
import { useState } from 'preact/hooks'
import { ApiError } from '../api/client.js'
import type { RevocationFeedEntry, RevocationFeedPage } from '../api/trust-types.js'
import { useApi, useConsole } from '../use-api.js'
import { ErrorPanel, Loading, Time } from './ui.js'

const FEED_PAGE = 50

export function RevocationFeed() {
  const { client } = useConsole()
  const first = useApi((c) => c.get<RevocationFeedPage>('/auth/revocations', { limit: FEED_PAGE }), [])
  const [more, setMore] = useState<{ entries: RevocationFeedEntry[]; cursor: number | null } | undefined>(undefined)
  const [problem, setProblem] = useState<string | undefined>(undefined)
  if (first.error?.statusCode === 403) {
    return <p class="muted">The revocation feed needs an admin key; this key is not one.</p>
  }
  if (first.error) return <ErrorPanel error={first.error} what="the revocation feed" />
  if (first.data === undefined) return <Loading what="the revocation feed" />
  const entries = [...first.data.entries, ...(more?.entries ?? [])]
  const cursor = more === undefined ? first.data.next_cursor : more.cursor
  const loadMore = async () => {
    if (cursor === null) return
    try {
      const next = await client.get<RevocationFeedPage>('/auth/revocations', { since: cursor, limit: FEED_PAGE })
      setMore({ entries: [...(more?.entries ?? []), ...next.entries], cursor: next.next_cursor })
      setProblem(undefined)
    } catch (error) {
      setProblem(error instanceof ApiError ? `${error.errorCode}: ${error.message}` : String(error))
    }
  }
  if (entries.length === 0) return <p class="muted">No token has been revoked.</p>
  return (
    <>
      {/* Focusable so a keyboard can scroll it when it is wider than a narrow screen (axe scrollable-region-focusable). */}
      <div class="table-scroll" tabIndex={0} role="region" aria-label="Revoked tokens">
        <table data-testid="revocations">
          <caption class="visually-hidden">Revoked tokens, oldest first</caption>
          <thead>
            <tr>
              <th scope="col">Token id (jti)</th>
              <th scope="col">Subject</th>
              <th scope="col">Issuer</th>
              <th scope="col">Expires</th>
              <th scope="col">Revoked</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={`${entry.iss} ${entry.jti}`} data-revoked-jti={entry.jti}>
                <td class="mono">{entry.jti}</td>
                <td class="mono">{entry.sub}</td>
                <td>{entry.iss}</td>
                <td>
                  <Time value={new Date(entry.exp * 1000).toISOString()} />
                </td>
                <td>
                  <Time value={new Date(entry.revoked_at_ms).toISOString()} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {cursor !== null && (
        <button type="button" class="secondary" onClick={loadMore}>
          Show more revocations
        </button>
      )}
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </>
  )
}
