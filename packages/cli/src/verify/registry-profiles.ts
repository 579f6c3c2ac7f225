/**
 * The advertised profiles of each registry a command verifies against (GET /.well-known/acdp.json, RFC-ACDP-0007
 * §3), fetched once per registry per command through the CLI's registry client: the SDK's lookup over
 * {@link getRegistryJson}, with a control plane given as the registry reported as the mistake it is instead of as
 * a registry without capabilities.
 */
import { createProfileLookup as createSdkProfileLookup, type ProfileLookup } from '@acdp/protocol'
import type { CliIo } from '../command.js'
import { findWrongService } from '../http/wrong-service.js'
import { cliRegistryReader } from './registry-fetch.js'

export type { ProfileLookup }

/** A lookup that asks each registry once; concurrent callers share the one request. */
export function createProfileLookup(io: Pick<CliIo, 'fetch' | 'signal'>): ProfileLookup {
  return createSdkProfileLookup(cliRegistryReader(io), { rethrow: (error) => findWrongService(error) !== undefined })
}
