/**
 * 0600: a second, previous webhook secret per enrollment, so a secret rotation has no window in which the
 * registry's deliveries are refused (docs/deploy.md "Rotation").
 *
 * `webhook_secret_previous_sealed` is sealed like the current one (AES-256-GCM, its own AAD context), and
 * `webhook_secret_previous_expires_at` (epoch ms) is when the control plane stops accepting it on its own; an
 * admin can drop it earlier. Both NULL when no rotation is in progress (every existing row).
 */
import type { Migration } from '@acdp/storage'
import type { Kysely } from 'kysely'

export const migration0600WebhookSecretRotation: Migration = {
  name: '0600_webhook_secret_rotation',
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists
  async up(db: Kysely<any>, kind) {
    // Epoch milliseconds need 64 bits on PostgreSQL; SQLite integers are 64-bit already.
    const int = kind === 'postgres' ? 'bigint' : 'integer'
    await db.schema.alterTable('registry_enrollments').addColumn('webhook_secret_previous_sealed', 'text').execute()
    await db.schema.alterTable('registry_enrollments').addColumn('webhook_secret_previous_expires_at', int).execute()
  },
}
