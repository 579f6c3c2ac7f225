/** Previous and next versions derived from real signed versions of one lineage, as the registry serves them. */
import { createProducerKey } from '@acdp/protocol'
import { describe, expect, it } from 'vitest'
import { readVersions } from '../lineage/lineage-history.js'
import { signedEnvelope } from '../../test/support/signed-envelope.js'
import { neighbours } from './supersession.js'

const key = createProducerKey()
const LINEAGE = `lin:sha256:${'2'.repeat(64)}`
const id = (n: number) => `acdp://registry.example.com/00000000-0000-4000-8000-00000000000${n}`

const version = (n: number, status: string, supersedes?: string) =>
  signedEnvelope(`v${n}`, {
    key,
    content: supersedes ? { supersedes } : {},
    registryMembers: { ctx_id: id(n), lineage_id: LINEAGE, version: n, created_at: `2026-06-12T09:0${n}:00Z` },
    envelope: { registry_state: { status } },
  })

const lineage = {
  versions: readVersions([version(1, 'retracted'), version(2, 'superseded', id(1)), version(3, 'active', id(2))]),
}

describe('neighbours', () => {
  it('links the first version to none before and its successor after', () => {
    expect(neighbours(id(1), null, lineage)).toEqual({
      previous: { kind: 'none' },
      next: { kind: 'version', ctxId: id(2), version: 2 },
    })
  })

  it('links a middle version both ways, and the head to none after', () => {
    expect(neighbours(id(2), id(1), lineage)).toEqual({
      previous: { kind: 'version', ctxId: id(1), version: 1 },
      next: { kind: 'version', ctxId: id(3), version: 3 },
    })
    expect(neighbours(id(3), id(2), lineage).next).toEqual({ kind: 'none' })
  })

  it('keeps the signed previous version and says the next is unknown when the lineage could not be had', () => {
    expect(neighbours(id(2), id(1), { problem: 'the lineage could not be retrieved (not_found)' })).toEqual({
      previous: { kind: 'version', ctxId: id(1), version: null },
      next: { kind: 'unknown', why: 'the lineage could not be retrieved (not_found)' },
    })
  })
})
