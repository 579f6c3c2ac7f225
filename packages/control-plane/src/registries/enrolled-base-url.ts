/**
 * The base URL through which the control plane may read an enrolled registry on a tenant's behalf: only an
 * enabled enrollment of that tenant that has one. Every relay (federation proxy, trust relay, lineage relay, the
 * receipt audit, the context search) asks this one question, each answering a miss with its own error.
 */
import type { EnrollmentDirectory, ResolvedEnrollment } from './enrollment-directory.js'

/** The enrollment itself when it may be read for `tenantId` (registry-read.ts adds its read headers). */
export async function readableEnrollment(
  enrollments: Pick<EnrollmentDirectory, 'get'>,
  tenantId: string,
  authority: string,
): Promise<(ResolvedEnrollment & { baseUrl: string }) | undefined> {
  const enrollment = await enrollments.get(authority)
  if (enrollment === undefined || enrollment.tenantId !== tenantId || !enrollment.enabled) return undefined
  const { baseUrl } = enrollment
  return baseUrl === null ? undefined : { ...enrollment, baseUrl }
}

export async function enrolledBaseUrl(
  enrollments: Pick<EnrollmentDirectory, 'get'>,
  tenantId: string,
  authority: string,
): Promise<string | undefined> {
  return (await readableEnrollment(enrollments, tenantId, authority))?.baseUrl
}
