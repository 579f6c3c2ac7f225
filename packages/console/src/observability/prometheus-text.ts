/**
 * The few figures the observability page shows, read from the control plane's own `GET /metrics` (Prometheus
 * text exposition format 0.0.4): each metric's samples summed over their labels, optionally only those whose
 * labels contain a given pair. A metric declared by `# TYPE` without samples sums to 0. Histogram series (`_bucket`, `_sum`, `_count`) keep their suffixed names.
 */

export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

export function parsePrometheusText(text: string): Sample[] {
  const samples: Sample[] = []
  for (const line of text.split('\n')) {
    // A declared metric with no sample yet (a labelled counter never incremented) counts as 0, not as absent.
    const declared = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) /.exec(line)
    if (declared !== null) samples.push({ name: declared[1]!, labels: {}, value: 0 })
    if (line === '' || line.startsWith('#')) continue
    const match = SAMPLE.exec(line)
    if (match === null) continue
    const labels: Record<string, string> = {}
    for (const label of (match[2] ?? '').matchAll(LABEL)) labels[label[1]!] = label[2]!.replace(/\\(.)/g, '$1')
    const value = Number(match[3])
    if (!Number.isNaN(value)) samples.push({ name: match[1]!, labels, value })
  }
  return samples
}

/** The sum of `name`'s samples (with `where` labels when given); undefined when the metric is not exposed. */
export function total(samples: Sample[], name: string, where: Record<string, string> = {}): number | undefined {
  const matching = samples.filter(
    (s) => s.name === name && Object.entries(where).every(([key, value]) => s.labels[key] === value),
  )
  return matching.length === 0 ? undefined : matching.reduce((sum, s) => sum + s.value, 0)
}
