/**
 * `acdp get --verify`'s pipeline (run by `acdp trace` for every walked node too): the SDK's verifyWithEvidence
 * over the CLI's registry reads, so an unreachable registry or a non-JSON answer is the CLI's own one-line error
 * with its exit code.
 */
import {
  type EvidenceVerification,
  verifyWithEvidence as verifyWithSdk,
  type VerifyWithEvidenceOptions,
} from '@acdp/protocol'
import type { CliIo } from '../command.js'
import { cliRegistryReader } from './registry-fetch.js'
import { createProfileLookup } from './registry-profiles.js'

/**
 * @param io its `fetch` and `signal` carry every lookup (trace passes its walk transport and deadline).
 * @throws CliError when the registry is unreachable or answers with something that is not JSON.
 */
export function verifyWithEvidence(
  io: Pick<CliIo, 'fetch' | 'signal'>,
  registryUrl: string,
  fetched: Record<string, unknown>,
  options: VerifyWithEvidenceOptions,
): Promise<EvidenceVerification> {
  return verifyWithSdk(cliRegistryReader(io), registryUrl, fetched, {
    ...options,
    profiles: options.profiles ?? createProfileLookup(io),
  })
}
