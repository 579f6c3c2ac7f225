// Public surface of @acdp/mcp: re-exports only.
export { type AcdpMcp, createAcdpMcp, SERVER_NAME, SERVER_VERSION } from './acdp-mcp-server.js'
export {
  type AcdpMcpConfig,
  type ControlPlaneAccess,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_MAX_RESULT_BYTES,
} from './config.js'
export {
  DEFAULT_HTTP_HOST,
  DEFAULT_MAX_SESSIONS,
  type HttpTransportOptions,
  type RunningHttpTransport,
  startHttpTransport,
} from './http-transport.js'
export { isLoopbackHost } from './listen-address.js'
export { serveStdio } from './stdio-transport.js'
