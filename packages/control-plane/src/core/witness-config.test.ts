import { generateKeyPairSync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from './config.js'

const pem = () => generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  return []
}

const COSIGNING = {
  LOG_WITNESS_ENABLED: 'true',
  WITNESS_COSIGNING_ENABLED: 'true',
  WITNESS_ID: 'did:web:witness.example.org',
  PUBLIC_HOST: 'witness.example.org',
}

describe('witness configuration', () => {
  it('is off by default with the documented defaults', () => {
    expect(loadConfig({}).witness).toMatchObject({
      enabled: false,
      schedule: true,
      intervalSeconds: 300,
      concurrency: 64,
      unreachableThreshold: 5,
      maxClockSkewSeconds: 120,
      cosigning: { enabled: false, cosignaturesKeptPerLog: 100 },
      quorum: { enabled: false, minWitnesses: 1, maxClockSkewSeconds: 120 },
    })
  })

  it('reads the cosigning key as its Ed25519 seed and defaults the key id', () => {
    const config = loadConfig({ ...COSIGNING, WITNESS_SIGNING_PRIVATE_KEY_PEM: pem() })
    expect(config.witness.cosigning.keyId).toBe('did:web:witness.example.org#witness-key-1')
    expect(config.witness.cosigning.privateKeySeed).toHaveLength(32)
  })

  it.each([
    ['cosigning without the witness', { ...COSIGNING, LOG_WITNESS_ENABLED: 'false' }, /needs LOG_WITNESS_ENABLED/],
    ['cosigning without a key', COSIGNING, /needs WITNESS_SIGNING_PRIVATE_KEY_PEM/],
    [
      'a did:web WITNESS_ID on another host than PUBLIC_HOST',
      { ...COSIGNING, PUBLIC_HOST: 'cp.example.org' },
      /must equal PUBLIC_HOST/,
    ],
    ['a did:web WITNESS_ID without PUBLIC_HOST', { ...COSIGNING, PUBLIC_HOST: '' }, /set PUBLIC_HOST/],
    ['a WITNESS_ID that is not a DID', { ...COSIGNING, WITNESS_ID: 'witness.example.org' }, /WITNESS_ID must be/],
    ['a key id outside WITNESS_ID', { ...COSIGNING, WITNESS_KEY_ID: 'did:web:other.example#k' }, /WITNESS_KEY_ID/],
    ['a key that is not PEM', { ...COSIGNING, WITNESS_SIGNING_PRIVATE_KEY_PEM: 'nope' }, /not a readable PEM/],
    [
      'a P-256 key',
      {
        ...COSIGNING,
        WITNESS_SIGNING_PRIVATE_KEY_PEM: generateKeyPairSync('ec', { namedCurve: 'P-256' })
          .privateKey.export({ format: 'pem', type: 'pkcs8' })
          .toString(),
      },
      /must be an Ed25519 private key/,
    ],
    [
      'our own WITNESS_ID among the trusted quorum witnesses',
      { LOG_WITNESS_ENABLED: 'true', WITNESS_ID: 'did:web:w.example', WITNESS_QUORUM_TRUSTED: 'did:web:w.example' },
      /must not list our own WITNESS_ID/,
    ],
    [
      'quorum without trusted witnesses',
      { LOG_WITNESS_ENABLED: 'true', WITNESS_QUORUM_ENABLED: 'true' },
      /needs WITNESS_QUORUM_TRUSTED/,
    ],
  ])('refuses %s', (_name, env, problem) => {
    expect(problemsOf(env as Record<string, string>).some((p) => problem.test(p))).toBe(true)
  })

  it('refuses the JWT signing key as the witness key', () => {
    const key = pem()
    const problems = problemsOf({ ...COSIGNING, WITNESS_SIGNING_PRIVATE_KEY_PEM: key, JWT_PRIVATE_KEY_PEM: key })
    expect(problems).toContain('WITNESS_SIGNING_PRIVATE_KEY_PEM must be a dedicated key, not the JWT/JWKS signing key')
  })
})
