/**
 * The peers' revocation feeds this control plane follows (GET /auth/revocation-feeds, admin): per feed its issuer
 * and URL, the durable cursor, this instance's last poll and its outcome, and the revocations it brought (a count
 * and the newest, their token id and subject as digests — a token is never shown, nor is the feed's credential).
 */
import type { PeerFeed } from '../api/status-types.js'
import { useApi } from '../use-api.js'
import { ErrorPanel, Loading, Time } from './ui.js'

export const NO_PEER_FEED_TEXT = 'This control plane follows no peer revocation feed (REVOCATION_FEEDS is empty).'

export function PeerFeeds() {
  const feeds = useApi((client) => client.get<{ data: PeerFeed[]; total: number }>('/auth/revocation-feeds'), [])
  if (feeds.error?.statusCode === 403) {
    return <p class="muted">The peers&apos; revocation feeds need an admin key; this key is not one.</p>
  }
  if (feeds.error) return <ErrorPanel error={feeds.error} what="the peers' revocation feeds" />
  if (feeds.data === undefined) return <Loading what="the peers' revocation feeds" />
  if (feeds.data.data.length === 0) return <p class="muted">{NO_PEER_FEED_TEXT}</p>
  return (
    <>
      {feeds.data.data.map((feed) => (
        <section key={feed.issuer} class="peer-feed" data-peer-feed={feed.issuer} aria-label={`Feed of ${feed.issuer}`}>
          <h3>{feed.issuer}</h3>
          <dl class="facts">
            <dt>Feed URL</dt>
            <dd class="mono wrap">{feed.feedUrl}</dd>
            <dt>Polled every</dt>
            <dd>{feed.pollSeconds} s</dd>
            <dt>Cursor</dt>
            <dd data-peer-feed-cursor={feed.cursorMs ?? ''}>
              {feed.cursorMs === null ? (
                <span class="muted">not moved yet</span>
              ) : (
                <>
                  <Time value={new Date(feed.cursorMs).toISOString()} />
                  {feed.cursorUpdatedAt !== null && (
                    <span class="muted">
                      {' '}
                      (moved <Time value={feed.cursorUpdatedAt} />)
                    </span>
                  )}
                </>
              )}
            </dd>
            <dt>Last poll (this instance)</dt>
            <dd data-peer-feed-outcome={feed.lastPoll?.outcome ?? 'none'}>
              {feed.lastPoll === null ? (
                <span class="muted">none yet</span>
              ) : (
                <>
                  <span class={feed.lastPoll.outcome === 'ok' ? 'ok' : 'error'}>
                    {feed.lastPoll.outcome === 'ok' ? 'ok' : `failed: ${feed.lastPoll.errorCategory ?? 'unknown'}`}
                  </span>{' '}
                  <Time value={feed.lastPoll.at} />
                </>
              )}
            </dd>
            <dt>Revocations applied</dt>
            <dd data-peer-feed-applied={feed.applied.count}>{feed.applied.count.toLocaleString('en-US')}</dd>
          </dl>
          {feed.applied.newest.length > 0 && (
            <div
              class="table-scroll"
              tabIndex={0}
              role="region"
              aria-label={`Newest revocations applied from ${feed.issuer}`}
            >
              <table data-testid="peer-feed-revocations">
                <caption class="visually-hidden">Newest revocations applied from {feed.issuer}</caption>
                <thead>
                  <tr>
                    <th scope="col">Token id (SHA-256)</th>
                    <th scope="col">Subject (SHA-256)</th>
                    <th scope="col">Expires</th>
                    <th scope="col">Applied</th>
                  </tr>
                </thead>
                <tbody>
                  {feed.applied.newest.map((entry) => (
                    <tr key={`${entry.jtiSha256} ${entry.revokedAt}`}>
                      <td class="mono">{entry.jtiSha256}</td>
                      <td class="mono">{entry.subjectSha256}</td>
                      <td>
                        <Time value={new Date(entry.exp * 1000).toISOString()} />
                      </td>
                      <td>
                        <Time value={entry.revokedAt} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      ))}
    </>
  )
}
