/** Sign-in with an API key: checked against GET /session, then kept for this tab only (session.ts). */
import { useState } from 'preact/hooks'

export function SignInPage({ onSignIn }: { onSignIn(key: string): Promise<string | undefined> }) {
  const [key, setKey] = useState('')
  const [problem, setProblem] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setProblem(await onSignIn(key.trim()))
    setBusy(false)
  }
  return (
    <main id="main" class="sign-in">
      <h1>ACDP console</h1>
      <p>Sign in with a control-plane API key. It is kept in this browser tab only and sent as a bearer credential.</p>
      <form onSubmit={submit} aria-describedby={problem ? 'sign-in-problem' : undefined}>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autoComplete="current-password"
          required
          value={key}
          onInput={(event) => setKey((event.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={busy || key.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {problem && (
          <p id="sign-in-problem" class="error" role="alert">
            {problem}
          </p>
        )}
      </form>
    </main>
  )
}
