/**
 * Witness metrics (product spec control-plane.md "Metrics"), registered on the instance's registry by the witness
 * feature. Labels are fixed vocabularies (check results, alert reasons), never wire strings.
 */
import { Counter, type Registry } from 'prom-client'
import type { WitnessMetrics } from './witness-poller.js'

/** Registers `acdp_log_witness_checks_total`, `acdp_log_witness_alerts_total`, `acdp_log_cosignatures_total`. */
export function createWitnessMetrics(registry: Registry): WitnessMetrics {
  const registers = [registry]
  const checks = new Counter({
    name: 'acdp_log_witness_checks_total',
    help: 'Checkpoint observations by result: witnessed, alert, failure (environmental), not_a_log.',
    labelNames: ['result'] as const,
    registers,
  })
  const alerts = new Counter({
    name: 'acdp_log_witness_alerts_total',
    help: 'Witness detections by alert reason (every detection, including repeats of an active alert).',
    labelNames: ['reason'] as const,
    registers,
  })
  const cosignatures = new Counter({
    name: 'acdp_log_cosignatures_total',
    help: 'Cosignatures minted by this witness, by result.',
    labelNames: ['result'] as const,
    registers,
  })
  return {
    recordWitnessCheck: (result) => checks.inc({ result }),
    recordWitnessAlert: (reason) => alerts.inc({ reason }),
    recordCosignature: (result) => cosignatures.inc({ result }),
  }
}
