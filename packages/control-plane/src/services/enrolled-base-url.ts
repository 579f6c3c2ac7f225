/**
 * The base URL through which the control plane may read an enrolled registry on a tenant's behalf: only an
 * enabled enrollment of that tenant that has one. Every relay (federation proxy, trust relay, lineage relay, the
 * receipt audit) asks this one question, each answering a miss with its own error.
 */
import type { EnrollmentDirectory } from './enrollment-directory.js'

export async function enrolledBaseUrl(
  enrollments: Pick<EnrollmentDirectory, 'get'>,
  tenantId: string,
  authority: string,
): Promise<string | undefined> {
  const enrollment = await enrollments.get(authority)
  if (enrollment === undefined || enrollment.tenantId !== tenantId || !enrollment.enabled) return undefined
  return enrollment.baseUrl ?? undefined
}
