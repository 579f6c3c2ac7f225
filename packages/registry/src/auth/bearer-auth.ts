/**
 * Who is calling, from `Authorization: Bearer <jwt>` (product spec "Authentication" 1): the registry's
 * `ReaderAuthenticator` when `auth.enabled`. A token that is present but invalid, expired or revoked is refused
 * (403 not_authorized, never 401, never silently anonymous); a request without a bearer is anonymous, and
 * whether anonymous may proceed is each route's rule.
 */
import { RegistryError } from '../core/errors.js'
import type { RequestHead } from '../core/http/request-head.js'
import type { AuthStore } from './auth-store.js'
import type { BearerTokens, VerifiedToken } from './bearer-tokens.js'

const BEARER = /^Bearer[ ]+([A-Za-z0-9_.~+/=-]+)[ ]*$/i

/** The token text of a bearer `Authorization` header, or undefined when the header is absent or another scheme. */
export function bearerTokenOf(request: Pick<RequestHead, 'headers'>): string | undefined {
  const header = request.headers.authorization
  if (typeof header !== 'string' || !/^bearer /i.test(header)) return undefined
  const match = BEARER.exec(header)
  // A bearer header that is not a token at all is a bad credential, not an absent one.
  return match?.[1] ?? ''
}

export interface BearerAuthDeps {
  tokens: BearerTokens
  store: Pick<AuthStore, 'isTokenRevoked'>
  /** `iss` of our tokens (the registry DID): a peer feed naming this issuer revokes them too. */
  issuer: string
}

/**
 * The verified token of the request, or null without a bearer.
 *
 * @throws RegistryError not_authorized for an invalid, expired or revoked token.
 */
export async function authenticateBearer(
  deps: BearerAuthDeps,
  request: Pick<RequestHead, 'headers'>,
): Promise<VerifiedToken | null> {
  const token = bearerTokenOf(request)
  if (token === undefined) return null
  const verified = await deps.tokens.verify(token)
  if (await deps.store.isTokenRevoked(verified.jti, deps.issuer)) {
    throw new RegistryError('not_authorized', 'The bearer token is not valid.')
  }
  return verified
}
