import { describe, expect, it } from 'vitest'
import type { Enrollment, WitnessAlert } from '../api/types.js'
import type { RegistryAuditTotals, WitnessHeadState } from '../api/trust-types.js'
import { percent, registryTrustRows } from './registry-trust.js'

const enrollment = (authority: string): Enrollment => ({
  authority,
  tenantId: 'default',
  baseUrl: `https://${authority}`,
  registryDid: null,
  enabled: true,
  hasWebhookSecret: false,
  previousWebhookSecretExpiresAt: null,
  hasReadCredential: false,
  createdAt: '2026-01-15T12:00:00.000Z',
  updatedAt: '2026-01-15T12:00:00.000Z',
})
const totals = (authority: string, published: number, audited: number): RegistryAuditTotals => ({
  registryAuthority: authority,
  published,
  audited,
  verified: audited,
  verifiedHistorical: 0,
  structural: 0,
  noReceipt: 0,
  discrepancies: 0,
  errors: 0,
  inLog: 0,
  underWitnessedHead: 0,
  fullyEvidenced: 0,
  openDiscrepancies: 0,
})
const head: WitnessHeadState = {
  authority: 'a.example',
  logId: 'did:web:a.example/log/main',
  treeSize: 7,
  rootHash: 'sha256:abc',
  lastSuccessAt: '2026-01-15T12:00:00.000Z',
  lastAttemptAt: '2026-01-15T12:00:00.000Z',
  nextPollAt: '2026-01-15T12:05:00.000Z',
  consecutiveFailures: 0,
  lastFailure: null,
  alert: null,
  checkpoints: [
    {
      logId: 'did:web:a.example/log/main',
      treeSize: 7,
      rootHash: 'sha256:abc',
      timestamp: '2026-01-15T12:00:00.000Z',
      firstWitnessedAt: '2026-01-15T12:00:00.000Z',
      lastWitnessedAt: '2026-01-15T12:00:00.000Z',
      witnessedCount: 2,
      meetsQuorum: true,
      consistencyOk: true,
      quorumMin: 2,
      cosigners: [
        { name: 'did:web:w1.example', standing: 'counted' },
        { name: 'did:web:w2.example', standing: 'counted' },
        { name: null, standing: 'invalid' },
      ],
    },
  ],
  total: 1,
}
const alert = (authority: string, acknowledgedAt: string | null): WitnessAlert => ({
  id: `alert-${authority}`,
  authority,
  reason: 'unreachable',
  detail: {},
  at: '2026-01-15T12:00:00.000Z',
  lastSeenAt: '2026-01-15T12:00:00.000Z',
  acknowledgedAt,
  acknowledgedBy: acknowledgedAt === null ? null : 'admin',
})

describe('registryTrustRows', () => {
  it('joins enrollments, audit totals, witness heads and open alerts per authority', () => {
    const rows = registryTrustRows({
      enrollments: [enrollment('b.example'), enrollment('a.example')],
      totals: [totals('a.example', 5, 4), totals('seen.example', 1, 0)],
      witness: new Map([
        ['a.example', head],
        ['b.example', null],
      ]),
      alerts: [alert('b.example', null), alert('a.example', '2026-01-15T12:01:00.000Z')],
    })
    expect(rows.map((r) => [r.authority, r.enrolled])).toEqual([
      ['a.example', true],
      ['b.example', true],
      ['seen.example', false],
    ])
    expect(rows[0]!.counts).toMatchObject({ published: 5, audited: 4, verified: 4 })
    expect(rows[0]!.witness).toEqual({
      kind: 'head',
      treeSize: 7,
      rootHash: 'sha256:abc',
      lastSuccessAt: '2026-01-15T12:00:00.000Z',
      consistent: true,
      cosignatures: 2,
      quorum: true,
      quorumMin: 2,
      cosigners: [
        { name: 'did:web:w1.example', standing: 'counted' },
        { name: 'did:web:w2.example', standing: 'counted' },
        { name: null, standing: 'invalid' },
      ],
      failures: 0,
    })
    // An acknowledged alert is no longer open; an enrolled registry without totals counts zero.
    expect(rows[0]!.openWitnessAlerts).toEqual([])
    expect(rows[1]!.openWitnessAlerts.map((a) => a.reason)).toEqual(['unreachable'])
    expect(rows[1]!.witness).toEqual({ kind: 'not_witnessed' })
    expect(rows[1]!.counts.published).toBe(0)
  })

  it('reads a head without recorded cosigners (an older control plane, or a head seen before) as not recorded', () => {
    const { cosigners: _c, quorumMin: _q, ...older } = head.checkpoints[0]!
    const rows = registryTrustRows({
      enrollments: [enrollment('a.example')],
      totals: [],
      witness: new Map([['a.example', { ...head, checkpoints: [older as (typeof head.checkpoints)[number]] }]]),
      alerts: [],
    })
    expect(rows[0]!.witness).toMatchObject({ kind: 'head', cosignatures: 2, quorumMin: null, cosigners: null })
  })

  it('says the witness is off when the control plane does not serve it', () => {
    const rows = registryTrustRows({ enrollments: [enrollment('a.example')], totals: [], witness: null, alerts: [] })
    expect(rows[0]!.witness).toEqual({ kind: 'off' })
  })
})

describe('percent', () => {
  it('floors, so an incomplete share never reads 100 %, and has no share of nothing', () => {
    expect(percent(199, 200)).toBe('99 %')
    expect(percent(2, 2)).toBe('100 %')
    expect(percent(0, 0)).toBe('—')
  })
})
