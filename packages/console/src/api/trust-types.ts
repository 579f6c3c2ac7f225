/**
 * Wire shapes of the routes the Trust and Security pages read, derived from the control plane's response schemas
 * (see ./types.ts); the revocation feed's shape is the protocol package's own.
 */
import type {
  AuditCountsShape,
  AuditVerdictPageShape,
  AuditVerdictShape,
  JwksShape,
  PinnedKeyListShape,
  PinnedKeyShape,
  RegistryAuditTotalsShape,
  RunAuditTotalsShape,
  WitnessCosignerShape,
  WitnessStateShape,
} from '@acdp/control-plane/response-schemas'
import type { Static } from 'typebox'

export type { RevocationFeedPage, RevocationFeedEntry } from '@acdp/protocol/verify'
// Declared with the schemas because the control plane's own code names them too.
export type { AuditSummary, CosignerStanding } from '@acdp/control-plane/response-schemas'

/** Verdict counts of a set of publications (GET /receipt-audit/summary). */
export type AuditCounts = Static<typeof AuditCountsShape>
export type RegistryAuditTotals = Static<typeof RegistryAuditTotalsShape>
export type RunAuditTotals = Static<typeof RunAuditTotalsShape>

/** One receipt-audit verdict (GET /receipt-audit/verdicts). */
export type AuditVerdict = Static<typeof AuditVerdictShape>
export type AuditVerdictPage = Static<typeof AuditVerdictPageShape>

/** GET /.well-known/jwks.json: public JWKs only. */
export type Jwks = Static<typeof JwksShape>

/** GET /registries/:authority/log-witness: checkpoints with their consistency verdicts, cosigners and quorum. */
export type WitnessHeadState = Static<typeof WitnessStateShape>

/** One cosigner of a witnessed head: the witness its cosignature names (null: none), and its standing. */
export type WitnessCosigner = Static<typeof WitnessCosignerShape>

/** GET /admin/pinned-keys (admin): the pinned agent keys in force, public material only. */
export type PinnedKeyView = Static<typeof PinnedKeyShape>
export type PinnedKeyList = Static<typeof PinnedKeyListShape>
