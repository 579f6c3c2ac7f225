/**
 * Security: who the caller is as the API sees it (GET /session: tenant, role, credential kind) and what that role
 * may do; the control plane's token-signing keys (GET /.well-known/jwks.json); the pinned agent keys in force
 * (GET /admin/pinned-keys, admin); the token revocation feed (GET /auth/revocations, admin); the peers' revocation
 * feeds it follows (GET /auth/revocation-feeds, admin). Five reads; admin reads refused with 403 say so instead of
 * failing the page.
 */
import type { Session } from '../api/types.js'
import type { Jwks, PinnedKeyList } from '../api/trust-types.js'
import { PeerFeeds } from '../components/peer-feeds.js'
import { RevocationFeed } from '../components/revocation-feed.js'
import { ErrorPanel, Loading, Section, Time, Truncated } from '../components/ui.js'
import { useApi } from '../use-api.js'

const CREDENTIAL_TEXT: Record<Session['credential'], string> = {
  api_key: 'API key',
  jwt: 'bearer token (JWT)',
  development: 'development access',
}

export function SecurityPage() {
  return (
    <>
      <h1>Security</h1>
      <Section title="Who you are">
        <Caller />
      </Section>
      <Section title="Token signing keys (JWKS)">
        <SigningKeys />
      </Section>
      <Section title="Pinned agent keys">
        <PinnedKeys />
      </Section>
      <Section title="Token revocation feed">
        <RevocationFeed />
      </Section>
      <Section title="Peers' revocation feeds">
        <PeerFeeds />
      </Section>
    </>
  )
}

function Caller() {
  const session = useApi((client) => client.get<Session>('/session'), [])
  if (session.error) return <ErrorPanel error={session.error} what="the session" />
  if (session.data === undefined) return <Loading what="the session" />
  const { tenantId, isAdmin, credential } = session.data
  return (
    <>
      <dl class="facts" data-testid="caller">
        <dt>Tenant</dt>
        <dd data-caller="tenant">{tenantId}</dd>
        <dt>Role</dt>
        <dd data-caller="role">{isAdmin ? 'admin' : 'operator'}</dd>
        <dt>Signed in with</dt>
        <dd data-caller="credential">{CREDENTIAL_TEXT[credential]}</dd>
      </dl>
      <p>
        {isAdmin
          ? 'As an admin you may enroll registries, acknowledge witness alerts and receipt discrepancies, read the revocation feed and the pinned keys, and reload them.'
          : 'As an operator you may read this tenant’s runs, events, registries and evidence, and manage its webhooks; admin actions are refused.'}{' '}
        Every answer is scoped to tenant <strong>{tenantId}</strong>; the API decides, this page only reports.
      </p>
    </>
  )
}

function SigningKeys() {
  const jwks = useApi((client) => client.get<Jwks>('/.well-known/jwks.json'), [])
  if (jwks.error) return <ErrorPanel error={jwks.error} what="the JWKS" />
  if (jwks.data === undefined) return <Loading what="the JWKS" />
  const keys = jwks.data.keys
  return (
    <>
      {keys.length === 0 ? (
        <p class="muted">
          No public signing key: this control plane issues no tokens, or signs them with a shared secret (HS256), which
          is never published.
        </p>
      ) : (
        <div class="table-scroll">
          <table data-testid="jwks">
            <caption class="visually-hidden">Public keys of the control plane’s token signer</caption>
            <thead>
              <tr>
                <th scope="col">Key id (kid)</th>
                <th scope="col">Type</th>
                <th scope="col">Algorithm</th>
                <th scope="col">Use</th>
                <th scope="col">Public key</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key, i) => {
                const member = (name: string) => (typeof key[name] === 'string' ? (key[name] as string) : '—')
                return (
                  <tr key={member('kid') + i} data-jwk-kid={member('kid')}>
                    <td class="mono">{member('kid')}</td>
                    <td>
                      {member('kty')}
                      {typeof key['crv'] === 'string' ? ` (${key['crv']})` : ''}
                    </td>
                    <td>{member('alg')}</td>
                    <td>{member('use')}</td>
                    <td class="mono">
                      <Truncated value={member('x')} max={24} />
                    </td>
                  </tr>
                )
              })}
            </tbody>
          </table>
        </div>
      )}
      <p>
        <a href="/.well-known/jwks.json">The JWKS document as served</a> (public, cached 5 minutes).
      </p>
    </>
  )
}

function PinnedKeys() {
  const pinned = useApi((client) => client.get<PinnedKeyList>('/admin/pinned-keys'), [])
  if (pinned.error?.statusCode === 403) {
    return <p class="muted">The pinned keys are listed to admins; this key is not one.</p>
  }
  if (pinned.error) return <ErrorPanel error={pinned.error} what="the pinned keys" />
  if (pinned.data === undefined) return <Loading what="the pinned keys" />
  if (pinned.data.data.length === 0) {
    return <p class="muted">No agent key is pinned (CONTROL_PLANE_PINNED_KEYS is empty).</p>
  }
  const instant = (seconds: number | null) =>
    seconds === null ? <span class="muted">open</span> : <Time value={new Date(seconds * 1000).toISOString()} />
  return (
    <div class="table-scroll">
      <table data-testid="pinned-keys">
        <caption class="visually-hidden">Agent keys pinned in CONTROL_PLANE_PINNED_KEYS</caption>
        <thead>
          <tr>
            <th scope="col">Agent DID</th>
            <th scope="col">Algorithm</th>
            <th scope="col">Public key</th>
            <th scope="col">Valid from</th>
            <th scope="col">Valid until</th>
            <th scope="col">Now</th>
          </tr>
        </thead>
        <tbody>
          {pinned.data.data.map((key) => (
            <tr key={`${key.did} ${key.publicKey}`} data-pinned-did={key.did}>
              <td class="mono">{key.did}</td>
              <td>{key.algorithm}</td>
              <td class="mono">
                <Truncated value={key.publicKey} max={24} />
              </td>
              <td>{instant(key.validFrom)}</td>
              <td>{instant(key.validUntil)}</td>
              <td class={key.validNow ? 'ok' : 'muted'}>{key.validNow ? 'in force' : 'outside its window'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
