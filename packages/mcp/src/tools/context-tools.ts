/** get_context and verify_context. */
import type { EvidenceRequirement } from '@acdp/protocol'
import { z } from 'zod'
import { lookUpContext } from '../context-lookup.js'
import type { ToolContext, ToolDefinition } from '../tool-context.js'
import { ctxIdInput, requireInput, trustedWitnessesInput } from './input-shapes.js'

const getInput = {
  ctx_id: ctxIdInput,
  verify: z.boolean().default(true).describe('verify the context locally (default true)'),
  require: requireInput,
  trusted_witnesses: trustedWitnessesInput,
}

const verifyInput = { ctx_id: ctxIdInput, require: requireInput, trusted_witnesses: trustedWitnessesInput }

export function getContextTool(context: ToolContext): ToolDefinition<typeof getInput> {
  return {
    name: 'get_context',
    title: 'Get a context',
    description:
      "Retrieves an ACDP context from the registry of its own authority and, unless verify is false, verifies it locally: schema, content hash, key binding, DID resolution, signature, then the registry's receipt, log inclusion, witness cosignatures, key revocations and DataRefs. Each stage is reported verified, failed, not_available or not_checked, with why; verification.ok is false when a stage failed.",
    input: getInput,
    annotations: { readOnlyHint: true, openWorldHint: true },
    run: (args, signal) =>
      lookUpContext(
        context.access,
        args.ctx_id,
        { verify: args.verify, ...evidenceOptions(args.require, args.trusted_witnesses) },
        signal,
      ),
  }
}

export function verifyContextTool(context: ToolContext): ToolDefinition<typeof verifyInput> {
  return {
    name: 'verify_context',
    title: 'Verify a context',
    description:
      'Verifies an ACDP context as acdp get --verify does and answers the verification report only (ok, summary, every stage with its state and reason, notes), without the context itself.',
    input: verifyInput,
    annotations: { readOnlyHint: true, openWorldHint: true },
    run: async (args, signal) => {
      const looked = await lookUpContext(
        context.access,
        args.ctx_id,
        { verify: true, ...evidenceOptions(args.require, args.trusted_witnesses) },
        signal,
      )
      return { ctx_id: args.ctx_id, verification: looked['verification'] }
    },
  }
}

function evidenceOptions(
  require: { receipt?: boolean | undefined; log?: boolean | undefined; witnesses?: number | undefined } | undefined,
  trusted: string[] | undefined,
): { require?: EvidenceRequirement; trustedWitnesses?: string[] } {
  const requirement: EvidenceRequirement = {}
  if (require?.receipt === true) requirement.receipt = true
  if (require?.log === true) requirement.log = true
  if (require?.witnesses !== undefined) requirement.witnesses = require.witnesses
  return {
    ...(Object.keys(requirement).length === 0 ? {} : { require: requirement }),
    ...(trusted === undefined ? {} : { trustedWitnesses: trusted }),
  }
}
