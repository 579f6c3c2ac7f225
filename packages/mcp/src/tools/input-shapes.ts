/** Argument shapes the tools share (the SDK turns them into each tool's JSON schema). */
import { z } from 'zod'

export const ctxIdInput = z
  .string()
  .max(512)
  .regex(/^acdp:\/\/[^/\s]+\/\S+$/, 'must be a ctx_id: acdp://<authority>/<id>')
  .describe('ctx_id of the context, acdp://<authority>/<id>')

export const requireInput = z
  .object({
    receipt: z.boolean().optional().describe('fail unless the registry receipt verifies'),
    log: z.boolean().optional().describe('fail unless the log inclusion proof verifies'),
    witnesses: z.number().int().min(1).max(999).optional().describe('fail unless this many witnesses cosigned'),
  })
  .strict()
  .optional()
  .describe('evidence whose absence fails the verification (as acdp get --verify --require)')

export const trustedWitnessesInput = z
  .array(z.string().max(512))
  .max(32)
  .optional()
  .describe('count only these witness DIDs (default: any whose cosignature verifies)')
