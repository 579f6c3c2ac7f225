/** Status reads of the Observability and Security pages: an enrolled registry's probes, the peers' feeds. */

/** One probe of GET /registries/:authority/health. */
export interface RegistryProbe {
  status: 'ok' | 'failing' | 'not_served' | 'unreachable'
  httpStatus: number | null
  /** The registry's answer when a small JSON object, else null. */
  body: Record<string, unknown> | null
  error: string | null
}

/** GET /registries/:authority/health: the registry's /healthz and /readyz, asked now by the control plane. */
export interface RegistryHealth {
  authority: string
  health: RegistryProbe
  readiness: RegistryProbe
  checkedAt: string
}

/** One entry of GET /auth/revocation-feeds (admin). */
export interface PeerFeed {
  issuer: string
  feedUrl: string
  pollSeconds: number
  cursorMs: number | null
  cursorUpdatedAt: string | null
  /** This control plane instance's last poll (in memory, per instance). */
  lastPoll: { at: string; outcome: 'ok' | 'error'; errorCategory: string | null } | null
  applied: {
    count: number
    newest: Array<{ jtiSha256: string; subjectSha256: string; exp: number; revokedAt: string }>
  }
}
