/**
 * How the control plane reads an enrolled registry on a tenant's behalf (context search, lineage relay,
 * federation proxy): the enrollment's base URL and the request headers, with `Authorization: Bearer <read
 * credential>` when the enrollment holds one, so the registry answers with what that credential may see
 * (RFC-ACDP-0005 §2.5.5: restricted contexts whose audience names its DID, private ones it produced; its tenant's)
 * instead of what an anonymous reader may see.
 *
 * The credential only ever goes to the enrollment's own base URL: these reads go through the SSRF-safe outbound
 * client, which follows a redirect only within the same scheme, host and port and drops `Authorization` on every
 * hop (packages/protocol outbound/redirect.ts), so a redirect cannot carry it anywhere, not even along the same
 * origin. Never log the headers this builds.
 */
import { readableEnrollment } from './enrolled-base-url.js'
import type { EnrollmentDirectory, ResolvedEnrollment } from './enrollment-directory.js'

const ACCEPT = 'application/acdp+json, application/json'

/** The headers of a read of the enrollment's registry (holds the credential: never log them). */
export function registryReadHeaders(
  enrollment: Pick<ResolvedEnrollment, 'readCredential'> | undefined,
): Record<string, string> {
  const credential = enrollment?.readCredential
  return credential === undefined ? { accept: ACCEPT } : { accept: ACCEPT, authorization: `Bearer ${credential}` }
}

/**
 * The base URL and read headers of an enabled enrollment of `tenantId` with a base URL, or undefined (each caller
 * answers a miss with its own error).
 */
export async function enrolledRegistryRead(
  enrollments: Pick<EnrollmentDirectory, 'get'>,
  tenantId: string,
  authority: string,
): Promise<{ baseUrl: string; headers: Record<string, string> } | undefined> {
  const enrollment = await readableEnrollment(enrollments, tenantId, authority)
  return enrollment === undefined
    ? undefined
    : { baseUrl: enrollment.baseUrl, headers: registryReadHeaders(enrollment) }
}
