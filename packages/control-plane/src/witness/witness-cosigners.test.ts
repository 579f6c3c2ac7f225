import { ProtocolError } from '@acdp/protocol'
import { describe, expect, it } from 'vitest'
import { MAX_STORED_COSIGNERS } from './witness-store.js'
import { describeCosigners, MAX_COSIGNER_NAME_LENGTH } from './witness-cosigners.js'

const OWN = 'did:web:witness.test'
const fail = (index: number, reason: string) => ({
  index,
  error: new ProtocolError('verification_failed', reason, { details: { reason } }),
})
const named = (witnessId: unknown, keyId?: unknown) => ({
  witness_id: witnessId,
  ...(keyId === undefined ? {} : { signature: { key_id: keyId } }),
})

describe('describeCosigners', () => {
  it('names each cosignature by witness_id, else by its key_id DID, else null', () => {
    const signatures = [named('did:web:a.example'), named(7, 'did:web:b.example#k1'), named(undefined), 'junk']
    expect(describeCosigners(signatures, undefined, OWN)).toEqual([
      { name: 'did:web:a.example', standing: 'unchecked' },
      { name: 'did:web:b.example', standing: 'unchecked' },
      { name: null, standing: 'unchecked' },
    ])
  })

  it('cuts an attacker-sized name', () => {
    const [cosigner] = describeCosigners([named(`did:web:${'x'.repeat(5000)}`)], undefined, OWN)
    expect(cosigner?.name).toHaveLength(MAX_COSIGNER_NAME_LENGTH)
    expect(cosigner?.name?.endsWith('…')).toBe(true)
  })

  it('maps the §8 outcome: valid → counted, not trusted → untrusted (own for our id), any other failure → invalid', () => {
    const signatures = [named('did:web:a'), named('did:web:b'), named(OWN), named(OWN), named('did:web:c')]
    const verdicts = {
      failures: [
        fail(1, 'witness_not_trusted'),
        fail(2, 'witness_not_trusted'),
        fail(3, 'key_id_not_under_witness_id'), // a cosignature under our name that is not ours
        fail(4, 'signature_invalid'),
      ],
    }
    expect(describeCosigners(signatures, verdicts, OWN)).toEqual([
      { name: 'did:web:a', standing: 'counted' },
      { name: OWN, standing: 'own' },
      { name: 'did:web:b', standing: 'untrusted' },
      { name: OWN, standing: 'invalid' },
      { name: 'did:web:c', standing: 'invalid' },
    ])
  })

  it('without our own witness id nothing is own', () => {
    expect(describeCosigners([named(OWN)], undefined, undefined)).toEqual([{ name: OWN, standing: 'unchecked' }])
  })

  it('lists one witness once per standing and caps the list, counted first', () => {
    const crowd = Array.from({ length: 50 }, (_, i) => named(`did:web:w${i}`))
    const signatures = [...crowd, named('did:web:w0'), named('did:web:trusted'), named('did:web:trusted')]
    const failures = crowd.map((_, i) => fail(i, 'witness_not_trusted'))
    failures.push(fail(50, 'witness_not_trusted'))
    const listed = describeCosigners(signatures, { failures }, OWN)
    expect(listed).toHaveLength(MAX_STORED_COSIGNERS)
    expect(listed[0]).toEqual({ name: 'did:web:trusted', standing: 'counted' })
    expect(listed.slice(1).map((c) => c.name)).toEqual(
      crowd.slice(0, MAX_STORED_COSIGNERS - 1).map((c) => c.witness_id),
    )
  })
})
