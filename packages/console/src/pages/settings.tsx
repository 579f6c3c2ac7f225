/**
 * Settings / connection: which control plane this console talks to, as which tenant and role, which registries
 * the tenant has enrolled, and an SDK snippet that publishes into this stack (the enrolled registry's base URL;
 * the registry's webhooks then bring each context here). Nothing secret is shown: the API key stays in the tab.
 */
import type { EnrollmentList } from '../api/types.js'
import { ErrorPanel, Loading, Section } from '../components/ui.js'
import { useApi, useConsole } from '../use-api.js'

/** The SDK the snippet imports (shown to the user; the console itself imports only @acdp/protocol/verify). */
const SDK_PACKAGE = '@acdp/protocol'

function snippet(registryUrl: string): string {
  return [
    `import { createProducer, createProducerKey } from '${SDK_PACKAGE}'`,
    '',
    '// A did:key identity; keep it (e.g. with `acdp keys`) to publish later versions under the same agent.',
    `const producer = createProducer({ registryUrl: ${JSON.stringify(registryUrl)}, key: createProducerKey() })`,
    "const { ctxId } = await producer.publish({ type: 'analysis', title: 'My first context' }, { runId: 'my-run' })",
    'console.log(ctxId)',
  ].join('\n')
}

export function SettingsPage() {
  const { session } = useConsole()
  const enrollments = useApi((client) => client.get<EnrollmentList>('/registries/enrollments'), [])
  const target = enrollments.data?.data.find((e) => e.enabled && e.baseUrl !== null)
  return (
    <>
      <h1>Settings</h1>
      <Section title="Connection">
        <dl class="facts">
          <dt>Control plane</dt>
          <dd class="mono wrap" data-setting="control-plane">
            {location.origin}
          </dd>
          <dt>Tenant</dt>
          <dd data-setting="tenant">{session.tenantId}</dd>
          <dt>Role</dt>
          <dd data-setting="role">{session.isAdmin ? 'admin' : 'reader (non-admin key)'}</dd>
          <dt>Credential</dt>
          <dd>{session.credential.replace('_', ' ')} (kept in this tab only)</dd>
        </dl>
      </Section>
      <Section title="Registries of this tenant">
        {enrollments.error && <ErrorPanel error={enrollments.error} what="enrollments" />}
        {enrollments.data === undefined ? (
          !enrollments.error && <Loading what="enrollments" />
        ) : enrollments.data.data.length === 0 ? (
          <p class="muted">No registry is enrolled yet.</p>
        ) : (
          <ul>
            {enrollments.data.data.map((e) => (
              <li key={e.authority} data-enrolled={e.authority}>
                <strong>{e.authority}</strong> <span class="mono wrap">{e.baseUrl ?? 'no base URL'}</span>
                {e.enabled ? '' : ' · disabled'}
              </li>
            ))}
          </ul>
        )}
      </Section>
      <Section title="Publish into this stack">
        {target === undefined ? (
          <p class="muted">Enroll a registry with a base URL first; the snippet publishes to it.</p>
        ) : (
          <>
            <p>
              With the SDK (<code>@acdp/protocol</code>), publish to {target.authority}; its webhooks bring the context
              to this control plane:
            </p>
            <pre tabIndex={0} aria-label="SDK snippet" data-snippet={target.baseUrl ?? ''}>
              {snippet(target.baseUrl ?? '')}
            </pre>
            <p>
              Or from a shell: <code>acdp publish body.json --key FILE --registry {target.baseUrl}</code> (see{' '}
              <code>acdp publish --help</code>).
            </p>
          </>
        )}
      </Section>
    </>
  )
}
