import { ProtocolError } from '@acdp/protocol'
import { describe, expect, it } from 'vitest'
import {
  fromProtocolError,
  REGISTRY_ERROR_STATUS,
  RegistryError,
  renderErrorEnvelope,
  toRegistryError,
} from './errors.js'

describe('the error envelope', () => {
  it('omits empty or absent details and never writes null', () => {
    expect(renderErrorEnvelope('not_found', 'Not found.')).toBe('{"error":{"code":"not_found","message":"Not found."}}')
    expect(renderErrorEnvelope('not_found', 'Not found.', {})).toBe(
      '{"error":{"code":"not_found","message":"Not found."}}',
    )
    expect(JSON.parse(renderErrorEnvelope('superseded_target', 'm', { reason: 'not_found' }))).toEqual({
      error: { code: 'superseded_target', message: 'm', details: { reason: 'not_found' } },
    })
  })

  it('uses the spec status per code and lets superseded_target be a 409 race', () => {
    expect(new RegistryError('superseded_target', 'm').status).toBe(400)
    expect(new RegistryError('superseded_target', 'm', { status: 409 }).status).toBe(409)
    expect(REGISTRY_ERROR_STATUS.key_resolution_unreachable).toBe(502)
    expect(REGISTRY_ERROR_STATUS.unsupported_media_type).toBe(415)
  })
})

describe('translation', () => {
  it.each([
    ['malformed_input', 'schema_violation'],
    ['too_deep', 'schema_violation'],
    ['not_canonicalizable', 'schema_violation'],
    ['invalid_signature_encoding', 'invalid_signature'],
    ['unsupported_algorithm', 'unsupported_algorithm'],
    ['invalid_did', 'key_resolution_failed'],
    ['key_resolution_failed', 'key_resolution_failed'],
    ['key_resolution_unreachable', 'key_resolution_unreachable'],
    ['outbound_refused', 'key_resolution_failed'],
    ['outbound_failed', 'key_resolution_unreachable'],
  ] as const)('ProtocolError %s → %s', (protocolCode, wireCode) => {
    expect(fromProtocolError(new ProtocolError(protocolCode, 'x')).code).toBe(wireCode)
  })

  it.each([
    [{ code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }, 'payload_too_large'],
    [{ code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 }, 'unsupported_media_type'],
    [{ code: 'FST_ERR_CTP_INVALID_CONTENT_LENGTH', statusCode: 400 }, 'schema_violation'],
    [{ code: 'FST_ERR_BAD_URL', statusCode: 400 }, 'schema_violation'],
    [{ validation: [{ instancePath: '/a', message: 'bad' }], statusCode: 400 }, 'schema_violation'],
    [new Error('boom'), 'internal_error'],
    ['a string', 'internal_error'],
  ])('framework error %# → %s', (error, code) => {
    expect(toRegistryError(error).code).toBe(code)
  })

  it('keeps the internal cause off the wire', () => {
    const mapped = toRegistryError(new Error('SELECT secret FROM vault'))
    expect(mapped.message).toBe('An unexpected error occurred.')
    expect(mapped.details).toBeUndefined()
  })
})
