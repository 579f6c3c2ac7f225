/**
 * Wire shapes of the routes the Trust and Security pages read (response schemas in the control plane's
 * routes/receipt-audit.ts and routes/auth.ts; the revocation feed's shape is the protocol package's own).
 */
import type { WitnessCheckpoint, WitnessState } from './types.js'

export type { RevocationFeedPage, RevocationFeedEntry } from '@acdp/protocol/verify'

/** Verdict counts of a set of publications (GET /receipt-audit/summary). */
export interface AuditCounts {
  published: number
  audited: number
  verified: number
  verifiedHistorical: number
  structural: number
  noReceipt: number
  discrepancies: number
  errors: number
}

export interface RegistryAuditTotals extends AuditCounts {
  registryAuthority: string
  openDiscrepancies: number
}

export interface RunAuditTotals extends AuditCounts {
  runId: string
}

export interface AuditSummary {
  registries: RegistryAuditTotals[]
  runs: RunAuditTotals[]
}

/** One receipt-audit verdict (GET /receipt-audit/verdicts). */
export interface AuditVerdict {
  eventId: string
  runId: string | null
  ctxId: string
  registryEventId: string | null
  registryAuthority: string
  verdict: 'verified' | 'verified_historical' | 'structural' | 'discrepancy' | 'no_receipt' | 'error'
  discrepancies: string[]
  detail: string | null
  attempts: number
  auditedAt: string
  acknowledgedAt: string | null
  acknowledgedBy: string | null
}

export interface AuditVerdictPage {
  data: AuditVerdict[]
  nextBefore: string | null
}

/** GET /.well-known/jwks.json: public JWKs only. */
export interface Jwks {
  keys: Array<Record<string, unknown>>
}

/** How one cosignature of a witnessed head stands (the control plane's services/witness-cosigners.ts). */
export type CosignerStanding = 'counted' | 'invalid' | 'untrusted' | 'unchecked' | 'own'

/** One cosigner of a witnessed head: the witness its cosignature names (null: none), and its standing. */
export interface WitnessCosigner {
  name: string | null
  standing: CosignerStanding
}

/** GET /registries/:authority/log-witness, with the checkpoint members the Trust page reads. */
export interface WitnessHeadState extends Omit<WitnessState, 'checkpoints'> {
  checkpoints: Array<
    WitnessCheckpoint & {
      consistencyOk: boolean | null
      /** Cosigners of the latest observation (at most 32, counted first); null: not recorded for this head. */
      cosigners: WitnessCosigner[] | null
      /** The quorum minimum then in force; null when quorum consumption was off. */
      quorumMin: number | null
    }
  >
}

/** GET /admin/pinned-keys (admin): the pinned agent keys in force, public material only. */
export interface PinnedKeyView {
  did: string
  algorithm: 'ed25519' | 'ecdsa-p256'
  publicKey: string
  validFrom: number | null
  validUntil: number | null
  validNow: boolean
}
