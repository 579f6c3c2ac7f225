/**
 * Configuration of token authentication (product spec "Authentication"): JWT issuance, pinned keys, tenant
 * stamping, trusted issuers, revocation feeds and the auth throttle. Read by loadConfig (config.ts) from the same
 * environment object; every malformed value is refused at boot, never parsed lazily per request (a typo must stop the boot, not fail a request hours later).
 */
import { createPrivateKey } from 'node:crypto'
import type { ConfigReader } from '../core/config.js'
import { DEFAULT_TENANT, TENANT_ID_PATTERN } from '../core/config.js'
import { parsePinnedKeys } from './pinned-keys.js'

/** A foreign issuer whose tokens are accepted (TRUSTED_ISSUERS entry). */
export interface TrustedIssuer {
  issuer: string
  algorithm: 'HS256' | 'EdDSA'
  /** HS256: the shared secret (at least 32 bytes). */
  secret: string | undefined
  /** EdDSA: the https JWKS URL, fetched through the outbound policy client. */
  jwksUrl: string | undefined
  /** Required `aud`. */
  audience: string
  /** Scopes every token must carry (in `scope`, `scopes` or `scp`); empty = none required. */
  requiredScopes: readonly string[]
  /** `read_only` flag: only GET/HEAD/OPTIONS (and POST /auth/introspect) are allowed. */
  readOnly: boolean
}

/** A peer revocation feed polled by this instance (REVOCATION_FEEDS entry). */
export interface RevocationFeed {
  issuer: string
  url: string
  /** Bearer credential for the peer's admin-only feed. Secret. */
  token: string
  pollSeconds: number
}

export interface TokenConfig {
  /** TOKEN_ISSUANCE_ENABLED: /auth/challenge and /auth/token answer; needs a signing key. */
  readonly issuanceEnabled: boolean
  /** JWT_SIGNING_ALG: HS256 (JWT_SECRET) or EdDSA (JWT_PRIVATE_KEY_PEM). */
  readonly signingAlg: 'HS256' | 'EdDSA'
  /** JWT_SECRET (HS256), at least 32 bytes. Secret. */
  readonly secret: string
  /** JWT_PRIVATE_KEY_PEM (EdDSA), PKCS#8 Ed25519. Secret. */
  readonly privateKeyPem: string
  /** JWT_KID: the `kid` header; derived from the key when empty. */
  readonly kid: string
  /** JWT_AUTHORITY, default control-plane.local: `iss` of issued tokens and the authority in the signing input. */
  readonly authority: string
  /** JWT_AUDIENCE, default the authority. */
  readonly audience: string
  /** JWT_TTL_SECONDS, default 3600. */
  readonly ttlSeconds: number
  /** CHALLENGE_TTL_SECONDS, default 300. */
  readonly challengeTtlSeconds: number
  /** CONTROL_PLANE_PINNED_KEYS as given (validated; parsed by auth/pinned-keys.ts). */
  readonly pinnedKeys: string
  /** TENANT_AGENTS: `tenantId:agent_did` pairs stamped as the `tenant` claim at minting. */
  readonly tenantAgents: readonly { readonly tenantId: string; readonly agentDid: string }[]
  /** TENANT_HEADER_TRUST: `none` (a JWT without tenant claim may not send X-Tenant-Id) or `any_peer`. */
  readonly tenantHeaderTrust: 'none' | 'any_peer'
  /** TRUSTED_ISSUERS. */
  readonly trustedIssuers: readonly TrustedIssuer[]
  /** REVOCATION_FEEDS. */
  readonly revocationFeeds: readonly RevocationFeed[]
  /** REVOCATION_SYNC_INTERVAL_MS, default 2000: how often an instance reloads revocations other instances wrote. */
  readonly revocationSyncMs: number
  /** AUTH_THROTTLE_LIMIT per AUTH_THROTTLE_WINDOW_MS per client IP on /auth/challenge and /auth/token (20/min). */
  readonly throttleLimit: number
  readonly throttleWindowMs: number
}

const MIN_JWT_SECRET_BYTES = 32

/** Reads the token settings; problems go to `read`. */
export function readTokenConfig(read: ConfigReader, isDevelopment: boolean): TokenConfig {
  const issuanceEnabled = read.env.TOKEN_ISSUANCE_ENABLED
  // An unknown algorithm or header trust was refused when the variable was parsed (config-variables.ts).
  const signingAlg = read.env.JWT_SIGNING_ALG
  const secret = read.env.JWT_SECRET
  const privateKeyPem = read.env.JWT_PRIVATE_KEY_PEM.replace(/\\n/g, '\n')
  if (secret !== '' && Buffer.byteLength(secret) < MIN_JWT_SECRET_BYTES) {
    read.refuse(`JWT_SECRET must be at least ${MIN_JWT_SECRET_BYTES} bytes`)
  }
  if (privateKeyPem !== '' && !isEd25519Pkcs8(privateKeyPem)) {
    read.refuse('JWT_PRIVATE_KEY_PEM must be a PKCS#8 PEM Ed25519 private key')
  }
  if (issuanceEnabled && signingAlg === 'HS256' && secret === '') {
    read.refuse('TOKEN_ISSUANCE_ENABLED=true with JWT_SIGNING_ALG=HS256 needs JWT_SECRET (at least 32 bytes)')
  }
  if (issuanceEnabled && signingAlg === 'EdDSA' && privateKeyPem === '') {
    read.refuse('TOKEN_ISSUANCE_ENABLED=true with JWT_SIGNING_ALG=EdDSA needs JWT_PRIVATE_KEY_PEM')
  }
  const authority = read.env.JWT_AUTHORITY
  if (!/^[A-Za-z0-9.:-]{1,255}$/.test(authority)) read.refuse('JWT_AUTHORITY must be a host name (authority)')
  const audience = read.env.JWT_AUDIENCE || authority

  const pinnedKeys = read.env.CONTROL_PLANE_PINNED_KEYS
  for (const problem of parsePinnedKeys(pinnedKeys).problems) read.refuse(problem)

  const tenantAgents = readTenantAgents(read)
  const trustedIssuers = readTrustedIssuers(read, authority, isDevelopment)
  return {
    issuanceEnabled,
    signingAlg,
    secret,
    privateKeyPem,
    kid: read.env.JWT_KID,
    authority,
    audience,
    ttlSeconds: read.env.JWT_TTL_SECONDS,
    challengeTtlSeconds: read.env.CHALLENGE_TTL_SECONDS,
    pinnedKeys,
    tenantAgents,
    tenantHeaderTrust: read.env.TENANT_HEADER_TRUST,
    trustedIssuers,
    revocationFeeds: readRevocationFeeds(read, isDevelopment),
    revocationSyncMs: read.env.REVOCATION_SYNC_INTERVAL_MS,
    throttleLimit: read.env.AUTH_THROTTLE_LIMIT,
    throttleWindowMs: read.env.AUTH_THROTTLE_WINDOW_MS,
  }
}

function isEd25519Pkcs8(pem: string): boolean {
  try {
    return createPrivateKey({ key: pem, format: 'pem' }).asymmetricKeyType === 'ed25519'
  } catch {
    return false
  }
}

/** TENANT_AGENTS: `tenantId:agent_did` (tenant first: DIDs contain colons). */
function readTenantAgents(read: ConfigReader): TokenConfig['tenantAgents'] {
  const result: { tenantId: string; agentDid: string }[] = []
  const seen = new Map<string, string>()
  read.env.TENANT_AGENTS.forEach((entry, index) => {
    const label = `TENANT_AGENTS entry ${index + 1}`
    const colon = entry.indexOf(':')
    const tenantId = entry.slice(0, colon)
    const agentDid = entry.slice(colon + 1)
    if (colon <= 0 || !/^did:[a-z0-9]+:\S+$/.test(agentDid)) {
      read.refuse(`${label} must have the form tenantId:did:…`)
      return
    }
    if (!TENANT_ID_PATTERN.test(tenantId) || tenantId === DEFAULT_TENANT) {
      read.refuse(`${label} names an invalid or reserved tenant`)
      return
    }
    const previous = seen.get(agentDid)
    if (previous !== undefined && previous !== tenantId) read.refuse(`${label} maps an agent to a second tenant`)
    if (previous === undefined) result.push({ tenantId, agentDid })
    seen.set(agentDid, tenantId)
  })
  return result
}

/** TRUSTED_ISSUERS: `iss|HS256|<secret>|<aud>[|scopes[|flags]]` or `iss|EdDSA|<https jwks url>|<aud>[|…]`. */
function readTrustedIssuers(read: ConfigReader, ownAuthority: string, isDevelopment: boolean): TrustedIssuer[] {
  const issuers: TrustedIssuer[] = []
  read.env.TRUSTED_ISSUERS.forEach((entry, index) => {
    const label = `TRUSTED_ISSUERS entry ${index + 1}`
    const [issuer = '', algorithm = '', keyRef = '', audience = '', scopes = '', flags = '', ...rest] = entry.split('|')
    if (rest.length > 0 || issuer === '' || audience === '') {
      read.refuse(`${label} must have the form iss|HS256|secret|audience[|scopes[|flags]] or iss|EdDSA|jwks_url|…`)
      return
    }
    if (issuer === ownAuthority) read.refuse(`${label} names this service's own issuer (JWT_AUTHORITY)`)
    if (issuers.some((other) => other.issuer === issuer)) read.refuse(`${label} lists an issuer twice`)
    const flagList = flags.split(/\s+/).filter((flag) => flag !== '')
    if (flagList.some((flag) => flag !== 'read_only')) read.refuse(`${label} has an unknown flag (only read_only)`)
    const base = {
      issuer,
      audience,
      requiredScopes: scopes.split(/\s+/).filter((scope) => scope !== ''),
      readOnly: flagList.includes('read_only'),
    }
    if (algorithm === 'HS256') {
      if (Buffer.byteLength(keyRef) < MIN_JWT_SECRET_BYTES) read.refuse(`${label} secret must be at least 32 bytes`)
      issuers.push({ ...base, algorithm, secret: keyRef, jwksUrl: undefined })
    } else if (algorithm === 'EdDSA') {
      if (!isFetchableUrl(keyRef, isDevelopment)) read.refuse(`${label} JWKS URL must be an https:// URL`)
      issuers.push({ ...base, algorithm, secret: undefined, jwksUrl: keyRef })
    } else {
      read.refuse(`${label} algorithm must be HS256 or EdDSA`)
    }
  })
  return issuers
}

/** REVOCATION_FEEDS: `issuer|feed_url|admin_token[|poll_seconds]`. */
function readRevocationFeeds(read: ConfigReader, isDevelopment: boolean): RevocationFeed[] {
  const feeds: RevocationFeed[] = []
  read.env.REVOCATION_FEEDS.forEach((entry, index) => {
    const label = `REVOCATION_FEEDS entry ${index + 1}`
    const [issuer = '', url = '', token = '', poll = '', ...rest] = entry.split('|')
    if (rest.length > 0 || issuer === '' || token === '') {
      read.refuse(`${label} must have the form issuer|feed_url|admin_token[|poll_seconds]`)
      return
    }
    if (!isFetchableUrl(url, isDevelopment)) read.refuse(`${label} feed URL must be an https:// URL`)
    const pollSeconds = poll === '' ? 300 : Number(poll)
    if (!Number.isSafeInteger(pollSeconds) || pollSeconds < 1 || pollSeconds > 86_400) {
      read.refuse(`${label} poll_seconds must be an integer between 1 and 86400`)
    }
    feeds.push({ issuer, url, token, pollSeconds })
  })
  return feeds
}

/** https always; plain http only in development (then still subject to OUTBOUND_ALLOW_CIDRS at request time). */
function isFetchableUrl(value: string, isDevelopment: boolean): boolean {
  try {
    const url = new URL(value)
    return url.protocol === 'https:' || (isDevelopment && url.protocol === 'http:')
  } catch {
    return false
  }
}
