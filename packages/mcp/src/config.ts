/**
 * What the MCP server is pointed at and the limits every tool call runs under. Built once by the caller (the
 * `acdp mcp` command, a test, an embedding app); nothing here is read from the environment.
 */
import type { OutboundClient, ProducerKey } from '@acdp/protocol'

/** Where the control plane is and how to authenticate to it (read-only calls: runs). */
export interface ControlPlaneAccess {
  baseUrl: string
  /** Bearer API key, when the control plane runs with AUTH_API_KEYS. Sent to `baseUrl` only. */
  apiKey?: string
  /** Sent as X-Tenant-Id when set. */
  tenantId?: string
}

export interface AcdpMcpConfig {
  /** Base URL of the registry this server publishes to and reads its own authority's contexts from. */
  registryUrl: string
  /**
   * The authority of that registry's ctx_ids (`acdp://<authority>/…`). Default: the host of the `registry_did`
   * its capabilities document names, read on first need.
   */
  registryAuthority?: string
  /** The agent key publish_context signs with. Absent: publish_context answers a tool error. Never serialized. */
  agentKey?: ProducerKey
  /** The control plane list_runs / get_run read; absent: those tools answer a tool error. */
  controlPlane?: ControlPlaneAccess
  /** Longest a tool call may take, in milliseconds; past it the call answers a tool error. Default 20 000. */
  callTimeoutMs?: number
  /** Largest tool result or resource, in bytes of its JSON text. Default 1 MiB. */
  maxResultBytes?: number
  /**
   * The SSRF-safe client for every URL nobody configured (other authorities, did:web documents). Absent: a
   * public-addresses-only, HTTPS-only client made on first use and closed with the server. An injected one
   * belongs to its caller.
   */
  outbound?: OutboundClient
  /** The fetch used for the configured registry and control plane URLs only. Default global fetch. */
  fetch?: typeof globalThis.fetch
}

export const DEFAULT_CALL_TIMEOUT_MS = 20_000
export const DEFAULT_MAX_RESULT_BYTES = 1024 * 1024
