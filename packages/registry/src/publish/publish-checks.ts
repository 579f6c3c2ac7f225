/**
 * The publish checks that JSON Schema cannot express (RFC-ACDP-0003 §2.1 steps 1 and 3). All input here is
 * attacker-controlled and already schema-valid. Each function throws the spec's wire code and nothing else.
 */
import {
  canonicalBytes,
  compareAcdpVersions,
  decodeBase64Strict,
  isDidWebOnlyVersion,
  isSha256String,
  type PublishRequest,
  sha256String,
} from '@acdp/protocol'
import { fromProtocolError, RegistryError } from '../core/errors.js'
import { isCanonicalTimestamp, parseTimestampMs } from '../core/timestamps.js'

/** RFC-ACDP-0002 §3.3. */
export const MAX_METADATA_DEPTH = 8
export const MAX_METADATA_CANONICAL_BYTES = 65_536
/** RFC-ACDP-0002 §6.3: decoded size of an embedded DataRef. */
export const MAX_EMBEDDED_BYTES = 65_536

/**
 * DID-method scope (RFC-ACDP-0001 §5.4, §5.11 step 2) — the cheap identity checks that precede hashing:
 * 1. the DID part of `signature.key_id` equals `agent_id`, else `key_not_authorized` 403 (pub-006, pub-009);
 * 2. `agent_id` is did:web, or did:key when advertised: an unadvertised did:key is `key_resolution_failed` with
 *    `details.did_method` (RFC-ACDP-0007 §3.1, dk-003), any other method is `schema_violation` (pub-008);
 * 3. a did:key body declares `acdp_version` ≥ 0.2.0: an absent field reads as 0.1.0, whose agents MUST be
 *    did:web (RFC-ACDP-0001 §5.4, §6), so such a body is `schema_violation` (pub-008's literal body) whether or
 *    not did:key is advertised — strict consumers reject it (RFC-ACDP-0001 §5.11 strict profile, SDK
 *    `verifyContext`), and a registry must not accept what they refuse.
 */
export function checkSignerIdentity(request: PublishRequest, acceptedDidMethods: readonly string[]): void {
  const keyId = request.signature.key_id
  const hash = keyId.indexOf('#')
  const keyDid = hash === -1 ? keyId : keyId.slice(0, hash)
  if (keyDid !== request.agent_id) {
    throw new RegistryError('key_not_authorized', 'The DID of signature.key_id must equal agent_id.')
  }
  const method = request.agent_id.slice(0, request.agent_id.indexOf(':', 4))
  if (method === 'did:web') return
  if (method === 'did:key') {
    if (isDidWebOnlyVersion(request.acdp_version)) {
      throw new RegistryError('schema_violation', 'A did:key agent_id needs acdp_version 0.2.0 or later.', {
        details: {
          errors: [{ path: '/agent_id', message: 'did:key producers need acdp_version >= 0.2.0 (absent means 0.1.0)' }],
        },
      })
    }
    if (acceptedDidMethods.includes('did:key')) return
    throw new RegistryError('key_resolution_failed', "did:key is not among this registry's supported DID methods.", {
      details: { did_method: 'did:key' },
    })
  }
  throw new RegistryError('schema_violation', 'agent_id must be a did:web (or advertised did:key) DID.', {
    details: { errors: [{ path: '/agent_id', message: 'unsupported DID method' }] },
  })
}

/**
 * Step 1 runtime rules: metadata depth ≤ 8 and canonical size ≤ 64 KiB, `data_period.start ≤ end`,
 * RFC-0016 anchors only from bodies declaring acdp_version ≥ 0.5.0, the retired interim revocation type, and the
 * RFC-ACDP-0014 §4 key-revocation shape. `registryDid` is this registry's DID (registry-attested revocations).
 *
 * @throws RegistryError schema_violation (details.errors lists the failing path)
 */
export function checkBodyRules(request: PublishRequest, registryDid: string): void {
  const fail = (path: string, message: string): never => {
    throw new RegistryError('schema_violation', 'The request violates a publish rule.', {
      details: { errors: [{ path, message }] },
    })
  }
  if (request.metadata !== undefined) {
    if (containerDepth(request.metadata) > MAX_METADATA_DEPTH) fail('/metadata', 'nesting deeper than 8 levels')
    if (canonicalSize(request.metadata) > MAX_METADATA_CANONICAL_BYTES)
      fail('/metadata', 'canonical form larger than 65536 bytes')
  }
  if (request.data_period !== undefined) {
    const start = parseTimestampMs(request.data_period.start)
    const end = parseTimestampMs(request.data_period.end)
    if (start === undefined) fail('/data_period/start', 'not a valid timestamp')
    if (end === undefined) fail('/data_period/end', 'not a valid timestamp')
    if ((start as number) > (end as number)) fail('/data_period', 'start is after end')
  }
  if (request.expires_at !== undefined && parseTimestampMs(request.expires_at) === undefined) {
    fail('/expires_at', 'not a valid timestamp')
  }
  if (request.anchors !== undefined) {
    const declared = request.acdp_version ?? '0.1.0'
    if (compareAcdpVersions(declared, '0.5.0') < 0)
      fail('/anchors', 'anchors require a body acdp_version of 0.5.0 or later')
  }
  if (request.type === 'acdp:key-revocation') {
    fail('/type', 'the interim type acdp:key-revocation is retired; publish key-revocation')
  }
  if (request.type === 'key-revocation') checkKeyRevocation(request, registryDid, fail)
}

/** RFC-ACDP-0014 §4–§6 shape of a key-revocation body (the self-signature check needs the resolved key). */
function checkKeyRevocation(
  request: PublishRequest,
  registryDid: string,
  fail: (path: string, message: string) => never,
): void {
  if (request.visibility !== 'public') fail('/visibility', 'a key-revocation must be public')
  const metadata = request.metadata
  if (metadata === undefined) {
    fail('/metadata', 'a key-revocation requires metadata')
    return
  }
  if (typeof metadata.revoked_key_fingerprint !== 'string' || !isSha256String(metadata.revoked_key_fingerprint)) {
    fail('/metadata/revoked_key_fingerprint', 'required: sha256:<64 lowercase hex>')
  }
  if (typeof metadata.compromised_since !== 'string' || !isCanonicalTimestamp(metadata.compromised_since)) {
    fail('/metadata/compromised_since', 'required: canonical millisecond RFC 3339 UTC timestamp')
  }
  if (
    metadata.revoked_key_id !== undefined &&
    (typeof metadata.revoked_key_id !== 'string' || !metadata.revoked_key_id.startsWith('did:'))
  ) {
    fail('/metadata/revoked_key_id', 'must be a DID URL')
  }
  const controller = metadata.revoked_key_controller
  if (request.agent_id === registryDid) {
    if (typeof controller !== 'string' || !controller.startsWith('did:')) {
      fail('/metadata/revoked_key_controller', 'required on a registry-attested revocation')
    }
  } else if (controller !== undefined && controller !== request.agent_id) {
    fail('/metadata/revoked_key_controller', 'must equal agent_id on a producer-signed revocation')
  }
  if (metadata.reason !== undefined && (typeof metadata.reason !== 'string' || metadata.reason.length > 1024)) {
    fail('/metadata/reason', 'must be a string of at most 1024 characters')
  }
}

/**
 * Step 3 (RFC-ACDP-0002 §6.3, §6.6 checks 6 and 8): each embedded DataRef decodes to at most 65536 bytes
 * (base64 → decoded bytes, utf8 → UTF-8 bytes, json → JCS bytes) and matches its optional content_hash.
 *
 * @throws RegistryError embedded_too_large (413) | data_ref_hash_mismatch (400) | schema_violation (bad base64)
 */
export function checkEmbeddedData(request: PublishRequest): void {
  request.data_refs.forEach((ref, index) => {
    const embedded = ref.embedded
    if (embedded === undefined) return
    let bytes: Uint8Array
    if (embedded.encoding === 'base64') {
      try {
        bytes = decodeBase64Strict(embedded.content as string)
      } catch (cause) {
        throw new RegistryError('schema_violation', 'Embedded base64 content is not valid base64.', {
          details: { errors: [{ path: `/data_refs/${index}/embedded/content`, message: 'invalid base64' }] },
          cause,
        })
      }
    } else if (embedded.encoding === 'utf8') {
      bytes = Buffer.from(embedded.content as string, 'utf8')
    } else {
      try {
        bytes = canonicalBytes(embedded.content)
      } catch (error) {
        throw fromProtocolError(error)
      }
    }
    if (bytes.byteLength > MAX_EMBEDDED_BYTES) {
      throw new RegistryError('embedded_too_large', 'An embedded data reference decodes to more than 65536 bytes.', {
        details: { data_ref_index: index, decoded_bytes: bytes.byteLength, max_embedded_bytes: MAX_EMBEDDED_BYTES },
      })
    }
    if (embedded.content_hash !== undefined && sha256String(bytes) !== embedded.content_hash) {
      throw new RegistryError('data_ref_hash_mismatch', 'An embedded data reference does not match its content_hash.', {
        details: { data_ref_index: index },
      })
    }
  })
}

/** Nesting depth where the metadata object's own keys are level 1 (RFC-ACDP-0002 §3.3; meta-001/003). */
function containerDepth(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0
  let deepest = 0
  const children = Array.isArray(value) ? value : Object.values(value)
  for (const child of children) {
    const d = containerDepth(child)
    if (d > deepest) deepest = d
  }
  return 1 + deepest
}

function canonicalSize(value: unknown): number {
  try {
    return canonicalBytes(value).byteLength
  } catch (error) {
    throw fromProtocolError(error)
  }
}
