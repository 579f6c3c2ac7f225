/**
 * A producer's signing identity as the SDK and the `acdp` CLI hold it, and its key file format
 * (docs/cli.md "Key files"): JSON `{ "algorithm", "did", "key_id", "private_key", "public_key" }`, keys as
 * padded standard base64 (Ed25519: 32-byte seed and 32-byte public key; ECDSA P-256: 32-byte scalar and
 * 33-byte compressed SEC1 point).
 *
 * RFC-ACDP-0001 §5.8 "Key storage": a cleartext key file is acceptable for development and CI only; the CLI
 * writes it with mode 0600 and says so.
 */
import { didKeyKeyId, encodeDidKey } from '../did/did-key.js'
import { ProtocolError } from '../errors.js'
import { isSignatureAlgorithm, type SignatureAlgorithm } from '../signature/algorithm.js'
import { decodeBase64Strict, encodeBase64 } from '../signature/base64.js'
import { p256PublicKeyFromPrivate } from '../signature/ecdsa-p256.js'
import { ed25519PublicKeyFromSeed } from '../signature/ed25519.js'

/** A loaded signing identity. `keyId` is the DID URL placed in `signature.key_id`. */
export interface ProducerKey {
  algorithm: SignatureAlgorithm
  /** The producer's DID, used as `agent_id`. */
  did: string
  /** `<did>#<fragment>`; for did:key the fragment is the DID's key part (RFC-ACDP-0001 §5.11.1). */
  keyId: string
  privateKey: Uint8Array
  publicKey: Uint8Array
}

/** The key file members, exactly as written to disk. */
export interface KeyFileDocument {
  algorithm: SignatureAlgorithm
  did: string
  key_id: string
  private_key: string
  public_key: string
}

/** Serializes a key to the key file format (pretty JSON, trailing newline). */
export function formatKeyFile(key: ProducerKey): string {
  const document: KeyFileDocument = {
    algorithm: key.algorithm,
    did: key.did,
    key_id: key.keyId,
    private_key: encodeBase64(key.privateKey),
    public_key: encodeBase64(key.publicKey),
  }
  return `${JSON.stringify(document, null, 2)}\n`
}

/**
 * Parses and checks a key file: every member present and well-formed, `key_id` a DID URL of `did`, and the
 * public key the one the private key derives (so a file edited by hand cannot sign as someone else).
 *
 * @throws ProtocolError `malformed_input` for text that is not a key file (`details.reason` names the member).
 * @throws ProtocolError `invalid_public_key` when the public key does not belong to the private key, or a
 *   did:key file's DID or key id is not the one its public key encodes.
 */
export function parseKeyFile(text: string): ProducerKey {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (cause) {
    throw new ProtocolError('malformed_input', 'key file is not JSON', { details: { reason: 'invalid_json' }, cause })
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw keyFileError('not_an_object', 'key file must be a JSON object')
  }
  const record = parsed as Record<string, unknown>
  const algorithm = record['algorithm']
  if (!isSignatureAlgorithm(algorithm))
    throw keyFileError('algorithm', 'key file "algorithm" must be "ed25519" or "ecdsa-p256"')
  const did = stringMember(record, 'did')
  if (!/^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$/.test(did)) throw keyFileError('did', 'key file "did" is not a DID')
  const keyId = stringMember(record, 'key_id')
  if (!keyId.startsWith(`${did}#`) || keyId.length === did.length + 1) {
    throw keyFileError('key_id', 'key file "key_id" must be "<did>#<fragment>"')
  }
  const privateKey = decodeKeyBytes(record, 'private_key', 32)
  const publicKey = decodeKeyBytes(record, 'public_key', algorithm === 'ed25519' ? 32 : 33)
  let derived: Uint8Array
  try {
    derived =
      algorithm === 'ed25519' ? ed25519PublicKeyFromSeed(privateKey) : p256PublicKeyFromPrivate(privateKey, true)
  } catch (cause) {
    // A P-256 scalar of zero or ≥ n has no public key.
    throw new ProtocolError('malformed_input', 'key file "private_key" is not a valid private key', {
      details: { reason: 'private_key' },
      cause,
    })
  }
  if (encodeBase64(derived) !== encodeBase64(publicKey)) {
    throw new ProtocolError('invalid_public_key', 'key file "public_key" does not belong to its "private_key"', {
      details: { reason: 'key_pair_mismatch' },
    })
  }
  // A did:key names its key: a file whose DID is another key's could only produce unverifiable contexts.
  if (did.startsWith('did:key:') && (encodeDidKey({ algorithm, publicKey }) !== did || keyId !== didKeyKeyId(did))) {
    throw new ProtocolError('invalid_public_key', 'key file "did" / "key_id" is not the did:key of its public key', {
      details: { reason: 'did_key_mismatch' },
    })
  }
  return { algorithm, did, keyId, privateKey, publicKey }
}

function stringMember(record: Record<string, unknown>, name: string): string {
  const value = record[name]
  if (typeof value !== 'string' || value === '')
    throw keyFileError(name, `key file "${name}" must be a non-empty string`)
  return value
}

function decodeKeyBytes(record: Record<string, unknown>, name: string, length: number): Uint8Array {
  let bytes: Uint8Array
  try {
    bytes = decodeBase64Strict(stringMember(record, name))
  } catch (cause) {
    if (cause instanceof ProtocolError && cause.code === 'malformed_input') throw cause
    throw new ProtocolError('malformed_input', `key file "${name}" is not canonical base64`, {
      details: { reason: name },
      cause,
    })
  }
  if (bytes.length !== length) throw keyFileError(name, `key file "${name}" must decode to ${length} bytes`)
  return bytes
}

function keyFileError(reason: string, message: string): ProtocolError {
  return new ProtocolError('malformed_input', message, { details: { reason } })
}
