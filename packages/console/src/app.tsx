/**
 * The console shell: sign-in gate, header with the tenant, navigation, and the page for the current route.
 * Everything is read through the control plane's public API with the operator's key; nothing here decides
 * access — the API does, and its refusals are shown as they come.
 */
import { useEffect, useMemo, useState } from 'preact/hooks'
import { ApiClient, ApiError } from './api/client.js'
import type { Session } from './api/types.js'
import { ContextLookup } from './components/context-lookup.js'
import { AgentsPage } from './pages/agents.js'
import { ContextPage } from './pages/context.js'
import { ContextsSearchPage } from './pages/contexts-search.js'
import { DashboardPage } from './pages/dashboard.js'
import { EventsPage } from './pages/events.js'
import { LineagePage } from './pages/lineage.js'
import { ObservabilityPage } from './pages/observability.js'
import { SettingsPage } from './pages/settings.js'
import { RegistriesPage } from './pages/registries.js'
import { RunDetailPage } from './pages/run-detail.js'
import { RunsPage } from './pages/runs.js'
import { SecurityPage } from './pages/security.js'
import { SignInPage } from './pages/sign-in.js'
import { TrustPage } from './pages/trust.js'
import { WebhooksPage } from './pages/webhooks.js'
import { href, type Route, useRoute } from './router.js'
import { clearStoredKey, loadStoredKey, storeKey } from './session.js'
import { Console } from './use-api.js'

const PAGES = [
  { page: 'dashboard', label: 'Dashboard' },
  { page: 'runs', label: 'Runs' },
  { page: 'events', label: 'Events' },
  { page: 'registries', label: 'Registries' },
  { page: 'agents', label: 'Agents' },
  { page: 'webhooks', label: 'Webhooks' },
  { page: 'trust', label: 'Trust' },
  { page: 'security', label: 'Security' },
  { page: 'contexts', label: 'Contexts' },
  { page: 'observability', label: 'Observability' },
  { page: 'settings', label: 'Settings' },
] as const

interface SignedIn {
  client: ApiClient
  session: Session
}

export function App() {
  const [signedIn, setSignedIn] = useState<SignedIn | undefined>(undefined)
  const [checking, setChecking] = useState(() => loadStoredKey() !== undefined)
  const route = useRoute()

  const signIn = async (key: string): Promise<string | undefined> => {
    const client = new ApiClient(key)
    try {
      const session = await client.get<Session>('/session')
      storeKey(key)
      setSignedIn({ client, session })
      return undefined
    } catch (error) {
      if (error instanceof ApiError && error.statusCode === 401) return 'That key was not accepted.'
      return error instanceof ApiError ? error.message : String(error)
    }
  }

  useEffect(() => {
    const stored = loadStoredKey()
    if (stored === undefined) return
    void signIn(stored).then((problem) => {
      if (problem !== undefined) clearStoredKey()
      setChecking(false)
    })
  }, [])

  const signOut = () => {
    clearStoredKey()
    setSignedIn(undefined)
  }

  if (checking) return <p role="status">Signing in…</p>
  if (signedIn === undefined) return <SignInPage onSignIn={signIn} />
  return <Shell signedIn={signedIn} route={route} onSignOut={signOut} />
}

function Shell({ signedIn, route, onSignOut }: { signedIn: SignedIn; route: Route; onSignOut(): void }) {
  const context = useMemo(() => ({ client: signedIn.client, session: signedIn.session }), [signedIn])
  const current =
    route.page === 'contexts' && route.params[0] !== undefined
      ? 'Context'
      : route.page === 'lineages'
        ? 'Lineage'
        : (PAGES.find((p) => p.page === route.page)?.label ?? 'Not found')
  useEffect(() => {
    document.title = `${current} · ACDP console`
  }, [current])
  return (
    <Console.Provider value={context}>
      {/* The hash is the router's: following "#main" would open a Not-found page, so the link only moves focus. */}
      <a class="skip-link" href="#main" onClick={skipToMain}>
        Skip to content
      </a>
      <header class="topbar">
        <span class="brand">ACDP console</span>
        <nav aria-label="Main">
          <ul>
            {PAGES.map((p) => (
              <li key={p.page}>
                <a href={href(p.page)} aria-current={route.page === p.page ? 'page' : undefined}>
                  {p.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <ContextLookup />
        <span class="who" data-testid="tenant">
          Tenant <strong>{signedIn.session.tenantId}</strong>
          {signedIn.session.isAdmin ? ' · admin' : ''}
        </span>
        <button type="button" class="secondary" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Page route={route} />
      </main>
    </Console.Provider>
  )
}

function skipToMain(event: MouseEvent) {
  event.preventDefault()
  document.getElementById('main')?.focus()
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'dashboard':
      return <DashboardPage />
    case 'runs':
      return route.params[0] === undefined ? (
        <RunsPage query={route.query} />
      ) : (
        // Keyed by run: the selection and the inspector belong to one run and never carry over to the next.
        <RunDetailPage key={route.params[0]} runId={route.params[0]} />
      )
    case 'contexts':
      return route.params[0] === undefined ? (
        <ContextsSearchPage query={route.query} />
      ) : (
        <ContextPage key={route.params[0]} ctxId={route.params[0]} />
      )
    case 'lineages':
      return route.params[0] === undefined ? (
        <>
          <h1>Lineage</h1>
          <p>Open a lineage from a context page: &quot;Every version of this lineage&quot;.</p>
        </>
      ) : (
        <LineagePage key={route.params[0]} lineageId={route.params[0]} registry={route.query.get('registry')} />
      )
    case 'events':
      return <EventsPage query={route.query} />
    case 'registries':
      return <RegistriesPage />
    case 'agents':
      return <AgentsPage />
    case 'webhooks':
      return <WebhooksPage />
    case 'trust':
      return <TrustPage />
    case 'security':
      return <SecurityPage />
    case 'observability':
      return <ObservabilityPage />
    case 'settings':
      return <SettingsPage />
    default:
      return (
        <>
          <h1>Not found</h1>
          <p>
            No console page at this address. <a href={href('dashboard')}>Go to the dashboard</a>.
          </p>
        </>
      )
  }
}
