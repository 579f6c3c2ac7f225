/**
 * DataRef rows from the report of a real signed context verified by the inspector's own code: embedded content
 * checked against its hash (genuine and wrong), a location on the console's origin fetched and checked, a
 * location elsewhere not available (the browser may not fetch it), a non-HTTP locator not available.
 */
import { createHash } from 'node:crypto'
import { canonicalize } from '@acdp/protocol'
import { describe, expect, it } from 'vitest'
import { inspectContext } from '../verify/inspect-context.js'
import { verifyDataRefStages } from '../verify/verify-data-ref-stages.js'
import { dataRefRows } from './data-ref-rows.js'
import { signedEnvelope } from '../../test/support/signed-envelope.js'

const ORIGIN = 'http://127.0.0.1:8080'
const DATA = new TextEncoder().encode('a,b\n1,2\n')
const hash = (bytes: Uint8Array | string) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`
const EMBEDDED = { rows: [1, 2] }

const envelope = (dataRefs: unknown[]) => signedEnvelope('with data', { content: { data_refs: dataRefs } })

/** The console's origin serves DATA at /data.csv; any other request is a test failure. */
const served: typeof fetch = async (input) => {
  const url = String(input)
  if (url !== `${ORIGIN}/data.csv`) throw new Error(`unexpected fetch of ${url}`)
  return Object.defineProperty(new Response(DATA, { status: 200 }), 'url', { value: url })
}

async function rows(refs: unknown[], tamper = false) {
  const context = envelope(refs)
  if (tamper) (context.body as Record<string, unknown>)['title'] = 'tampered after signing'
  const inspection = await inspectContext(context)
  // The protocol's report is the CLI's without --fetch-data: no location fetched, so none failed by the browser.
  expect(
    inspection.report!.stages.filter(
      (s) => s.name.startsWith('data_ref[') && s.state === 'failed' && s.reason.includes('origin'),
    ),
  ).toEqual([])
  return dataRefRows(context, await verifyDataRefStages(context, inspection, ORIGIN, served))
}

describe('dataRefRows', () => {
  it('lists each DataRef with where it is, its role, format and size, and its hash verdict', async () => {
    const [same, embedded, wrong, elsewhere, s3] = await rows([
      {
        type: 'primary_result',
        location: `${ORIGIN}/data.csv`,
        format: 'csv',
        size_bytes: DATA.byteLength,
        content_hash: hash(DATA),
      },
      {
        type: 'supporting_info',
        embedded: { encoding: 'json', content: EMBEDDED, content_hash: hash(canonicalize(EMBEDDED)) },
      },
      { type: 'raw_data', embedded: { encoding: 'utf8', content: 'tampered', content_hash: hash('original') } },
      { type: 'raw_data', location: 'https://data.example.com/x.parquet', format: 'parquet', content_hash: hash(DATA) },
      { type: 'derived_data', location: 's3://bucket/key' },
    ])
    expect(same).toMatchObject({
      index: 0,
      where: `${ORIGIN}/data.csv`,
      role: 'primary_result',
      format: 'csv',
      sizeBytes: DATA.byteLength,
      contentHash: hash(DATA),
      mark: 'verified',
    })
    expect(embedded).toMatchObject({ where: 'embedded (json)', mark: 'verified', sizeBytes: null })
    expect(wrong).toMatchObject({ mark: 'failed' })
    expect(wrong!.detail).toContain('data_ref_hash_mismatch')
    // Not fetched by the browser: not available, with why, never a failure.
    expect(elsewhere).toMatchObject({ mark: 'not_available', where: 'https://data.example.com/x.parquet' })
    expect(elsewhere!.detail).toBe(
      "https://data.example.com/x.parquet is not on the console's origin; the browser may fetch only http://127.0.0.1:8080 (CSP connect-src 'self'): check it with acdp get --verify --fetch-data",
    )
    expect(s3).toMatchObject({ mark: 'not_available', contentHash: null })
    expect(s3!.detail).toContain('s3://')
  })

  it('fails a same-origin DataRef whose bytes do not hash to the declared content_hash', async () => {
    const [row] = await rows([{ type: 'raw_data', location: `${ORIGIN}/data.csv`, content_hash: hash('other') }])
    expect(row).toMatchObject({ mark: 'failed' })
    expect(row!.detail).toContain('data_ref_hash_mismatch')
  })

  it("fetches nothing for a body that did not verify: its DataRefs keep the report's verdicts", async () => {
    const [row] = await rows(
      [{ type: 'raw_data', location: `${ORIGIN}/elsewhere.csv`, content_hash: hash(DATA) }],
      true,
    )
    expect(row!.mark).toBe('not_checked')
  })

  it('has no rows for a body without DataRefs, and unchecked rows without a report', async () => {
    expect(await rows([])).toEqual([])
    const context = envelope([{ type: 'raw_data', location: 's3://b/k' }])
    expect(dataRefRows(context, undefined)).toEqual([
      expect.objectContaining({ where: 's3://b/k', mark: 'not_checked', detail: 'the context was not verified' }),
    ])
  })
})
