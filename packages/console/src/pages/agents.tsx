/**
 * Agents: GET /agents (tenant-scoped, most recently seen first) and, per agent, its declared capabilities from
 * GET /capabilities/by-agent/{did} when this control plane serves capabilities (404 → not available).
 */
import { useState } from 'preact/hooks'
import type { AgentList, CapabilityList } from '../api/types.js'
import { ErrorPanel, Loading, Section, Time, Unavailable } from '../components/ui.js'
import { useApi } from '../use-api.js'

export function AgentsPage() {
  const agents = useApi((client) => client.get<AgentList>('/agents', { limit: 200 }), [])
  const [selected, setSelected] = useState<string | undefined>(undefined)
  return (
    <>
      <h1>Agents</h1>
      <Section title="Agents seen">
        {agents.error && <ErrorPanel error={agents.error} what="agents" />}
        {agents.data === undefined ? (
          !agents.error && <Loading what="agents" />
        ) : agents.data.data.length === 0 ? (
          <p class="muted">No agent has published yet.</p>
        ) : (
          <div class="table-scroll">
            <table>
              <caption class="visually-hidden">Agents, most recently seen first</caption>
              <thead>
                <tr>
                  <th scope="col">Agent DID</th>
                  <th scope="col">Registry</th>
                  <th scope="col">First seen</th>
                  <th scope="col">Last seen</th>
                  <th scope="col" class="num">
                    Contexts
                  </th>
                  <th scope="col">Capabilities</th>
                </tr>
              </thead>
              <tbody>
                {agents.data.data.map((agent) => (
                  <tr key={agent.agentDid}>
                    <td class="mono wrap">{agent.agentDid}</td>
                    <td>{agent.registryAuthority}</td>
                    <td>
                      <Time value={agent.firstSeen} />
                    </td>
                    <td>
                      <Time value={agent.lastSeen} />
                    </td>
                    <td class="num">{agent.contextCount}</td>
                    <td>
                      <button type="button" class="secondary" onClick={() => setSelected(agent.agentDid)}>
                        Show capabilities<span class="visually-hidden"> of {agent.agentDid}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
      {selected !== undefined && <Capabilities did={selected} />}
    </>
  )
}

function Capabilities({ did }: { did: string }) {
  const loaded = useApi(
    (client) => client.get<CapabilityList>(`/capabilities/by-agent/${encodeURIComponent(did)}`),
    [did],
  )
  return (
    <Section title="Capabilities">
      <p class="mono wrap">{did}</p>
      {loaded.error?.isNotFound ? (
        <Unavailable feature="Agent capabilities" />
      ) : loaded.error ? (
        <ErrorPanel error={loaded.error} what="capabilities" />
      ) : loaded.data === undefined ? (
        <Loading what="capabilities" />
      ) : loaded.data.data.length === 0 ? (
        <p class="muted">This agent declared no capability.</p>
      ) : (
        <ul>
          {loaded.data.data.map((capability, i) => (
            <li key={i}>
              {capability.capability_uri} <Time value={capability.declared_at} />
            </li>
          ))}
        </ul>
      )}
    </Section>
  )
}
