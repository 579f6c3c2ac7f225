/**
 * The control plane's migrations, applied in name order at startup by `migrateToLatest` (@acdp/storage).
 *
 * Numbering: 0001–0099 core (this package's store), 0100 and up for the streams/webhooks/domain-packs
 * features. To add one: create `NNNN_<what>.ts` exporting a `Migration` whose `name` starts with its number,
 * import it here and append it to the list. Never rename or edit an applied migration; add a new one.
 */
import type { Migration } from '@acdp/storage'
import { migration0001Core } from './0001_core.js'
import { migration0100Webhooks } from './0100_webhooks.js'
import { migration0200LogWitness } from './0200_log_witness.js'
import { migration0300Auth } from './0300_auth.js'
import { migration0400RunsWindowIndex } from './0400_runs_window_index.js'
import { migration0500ListIndexes } from './0500_list_indexes.js'
import { migration0600WebhookSecretRotation } from './0600_webhook_secret_rotation.js'
import { migration0750ContextLineageIndex } from './0750_context_lineage_index.js'
import { migration0800ReceiptAudit } from './0800_receipt_audit.js'
import { migration0810LogReconciliation } from './0810_log_reconciliation.js'
import { migration0830RunActivity } from './0830_run_activity.js'
import { migration0840LifecycleReconciliation } from './0840_lifecycle_reconciliation.js'
import { migration0850WitnessCosigners } from './0850_witness_cosigners.js'
import { migration0860EnrollmentReadCredential } from './0860_enrollment_read_credential.js'
import { migration0870LogLeafMatches } from './0870_log_leaf_matches.js'

/** Every migration of the control plane schema, in application order. */
export const CONTROL_PLANE_MIGRATIONS: readonly Migration[] = [
  migration0001Core,
  migration0100Webhooks,
  migration0200LogWitness,
  migration0300Auth,
  migration0400RunsWindowIndex,
  migration0500ListIndexes,
  migration0600WebhookSecretRotation,
  migration0750ContextLineageIndex,
  migration0800ReceiptAudit,
  migration0810LogReconciliation,
  migration0830RunActivity,
  migration0840LifecycleReconciliation,
  migration0850WitnessCosigners,
  migration0860EnrollmentReadCredential,
  migration0870LogLeafMatches,
  // 0100+ (webhooks, streams, domain packs) are appended below this line, one entry each.
]

/** Name of the table that records applied migrations (distinct from the registry's, should they share a schema). */
export const MIGRATION_TABLE = 'acdp_control_plane_migration'
