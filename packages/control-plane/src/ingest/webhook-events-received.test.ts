import { describe, expect, it } from 'vitest'
import { ControlPlaneError } from '../core/errors.js'
import {
  readAuthority,
  readDerivedFrom,
  readOptionalDid,
  readOptionalText,
  readRunId,
  readType,
  toWireCtxId,
} from './webhook-events-received.js'

/** The refusal a reader throws, as the ingest route renders it. */
function refusal(read: () => unknown): { code: string; message: string } | undefined {
  try {
    read()
    return undefined
  } catch (error) {
    if (!(error instanceof ControlPlaneError)) throw error
    return { code: error.code, message: error.message }
  }
}

describe('reading a received webhook envelope', () => {
  it('takes the authority from registry_authority, else from a wire-form ctx_id, lowercased', () => {
    expect(readAuthority({ registry_authority: 'Reg.Example' })).toBe('reg.example')
    expect(readAuthority({ ctx_id: 'acdp://Other.Example/0b6f3c1e-8a47-4c4e-9a39-5d2f1f7e8a10' })).toBe('other.example')
    expect(refusal(() => readAuthority({ ctx_id: 'reg.example/0b6f3c1e-8a47-4c4e-9a39-5d2f1f7e8a10' }))).toEqual({
      code: 'INVALID_PAYLOAD',
      message: 'registry_authority is required',
    })
    expect(refusal(() => readAuthority({ registry_authority: 7 }))?.message).toBe('registry_authority must be a string')
  })

  it('treats an absent or null member as absent and refuses a present malformed one, naming it', () => {
    expect(readOptionalText({}, 'lineage_id', 255)).toBeNull()
    expect(readOptionalText({ lineage_id: null }, 'lineage_id', 255)).toBeNull()
    expect(refusal(() => readOptionalText({ lineage_id: '' }, 'lineage_id', 255))).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'lineage_id must be a non-empty string of at most 255 characters',
    })
    expect(refusal(() => readOptionalText({ actor: 'a\nb' }, 'actor', 2048))?.code).toBe('VALIDATION_ERROR')
    expect(refusal(() => readOptionalDid({ agent_id: 'not-a-did' }, 'agent_id'))?.message).toBe(
      'agent_id must be a DID',
    )
  })

  it('counts lengths in UTF-16 code units, as ingest always has', () => {
    const astral = '\u{1F600}'.repeat(128) // 128 code points, 256 code units
    expect(refusal(() => readOptionalText({ run_id: astral }, 'run_id', 255))?.code).toBe('VALIDATION_ERROR')
    expect(readOptionalText({ run_id: astral.slice(0, 254) }, 'run_id', 255)).toBe(astral.slice(0, 254))
  })

  it('lets X-Run-Id win over the body run_id, which is then not read at all', () => {
    expect(readRunId('run-h', { run_id: 42 })).toBe('run-h')
    expect(refusal(() => readRunId(undefined, { run_id: 42 }))?.code).toBe('VALIDATION_ERROR')
  })

  it('accepts unknown event types and refuses a missing one', () => {
    expect(readType({ type: 'context.published' })).toBe('context.published')
    expect(refusal(() => readType({}))).toEqual({ code: 'INVALID_PAYLOAD', message: 'type is required' })
  })

  it('stores ctx_ids in the wire form and deduplicates derived_from', () => {
    expect(toWireCtxId('reg.example/0b6f3c1e-8a47-4c4e-9a39-5d2f1f7e8a10')).toBe(
      'acdp://reg.example/0b6f3c1e-8a47-4c4e-9a39-5d2f1f7e8a10',
    )
    expect(toWireCtxId('acdp://reg.example/x')).toBe('acdp://reg.example/x')
    expect(toWireCtxId(null)).toBeNull()
    expect(readDerivedFrom({ derived_from: ['a/1', 'a/1', 'a/2'] })).toEqual(['a/1', 'a/2'])
    expect(readDerivedFrom({ derived_from: null })).toEqual([])
  })
})
