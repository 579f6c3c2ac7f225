import { describe, expect, it } from 'vitest'
import { parsePrometheusText, total } from './prometheus-text.js'

const TEXT = `# HELP http_requests_total Requests
# TYPE http_requests_total counter
http_requests_total{method="GET",status_code="200"} 7
http_requests_total{method="POST",status_code="401"} 2
acdp_events_ingested_total 12
process_label{path="a \\"quoted\\" b"} 1
# TYPE acdp_webhook_deliveries_total counter
`

describe('prometheus text', () => {
  it('sums a metric over its labels, or over the samples with the given labels', () => {
    const samples = parsePrometheusText(TEXT)
    expect(total(samples, 'http_requests_total')).toBe(9)
    expect(total(samples, 'http_requests_total', { status_code: '401' })).toBe(2)
    expect(total(samples, 'acdp_events_ingested_total')).toBe(12)
    expect(total(samples, 'absent_total')).toBeUndefined()
    expect(total(samples, 'acdp_webhook_deliveries_total')).toBe(0)
    expect(samples.find((s) => s.name === 'process_label')?.labels['path']).toBe('a "quoted" b')
  })
})
