/**
 * 0860: an optional read credential per enrollment (a bearer token the registry accepts for reads), sent by the
 * control plane's reads of that registry (context search, lineage relay, federation proxy) so that what the
 * credential may see (restricted, private or tenant contexts) is found, not only public contexts.
 *
 * `read_credential_sealed` is sealed like the webhook secrets (AES-256-GCM, its own AAD context, so a sealed
 * webhook secret copied into it does not open). NULL: the registry is read anonymously (every existing row).
 */
import type { Migration } from '@acdp/storage'
import type { Kysely } from 'kysely'

export const migration0860EnrollmentReadCredential: Migration = {
  name: '0860_enrollment_read_credential',
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists
  async up(db: Kysely<any>) {
    await db.schema.alterTable('registry_enrollments').addColumn('read_credential_sealed', 'text').execute()
  },
}
