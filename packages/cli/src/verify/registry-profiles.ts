/**
 * The advertised profiles of each registry a command verifies against (GET /.well-known/acdp.json, RFC-ACDP-0007
 * §3), fetched once per registry per command through the CLI's registry client. A registry whose capabilities
 * cannot be read gets `known: false` with the reason, which the verification summary repeats.
 */
import { readAdvertisedProfiles, type RegistryProfiles } from '@acdp/protocol'
import type { CliIo } from '../command.js'
import { findWrongService } from '../http/wrong-service.js'
import { getRegistryJson } from './registry-fetch.js'

/** The profiles of `registryUrl`, memoized by URL. */
export type ProfileLookup = (registryUrl: string) => Promise<RegistryProfiles>

/** A lookup that asks each registry once; concurrent callers share the one request. */
export function createProfileLookup(io: Pick<CliIo, 'fetch' | 'signal'>): ProfileLookup {
  const byRegistry = new Map<string, Promise<RegistryProfiles>>()
  return (registryUrl) => {
    const key = registryUrl.replace(/\/+$/, '')
    let pending = byRegistry.get(key)
    if (pending === undefined) {
      pending = readProfiles(io, key)
      byRegistry.set(key, pending)
    }
    return pending
  }
}

async function readProfiles(io: Pick<CliIo, 'fetch' | 'signal'>, registryUrl: string): Promise<RegistryProfiles> {
  try {
    const answer = await getRegistryJson(io, registryUrl, '/.well-known/acdp.json')
    if (answer.status !== 200) {
      return { known: false, reason: `GET /.well-known/acdp.json answered HTTP ${answer.status}` }
    }
    return readAdvertisedProfiles(answer.body)
  } catch (error) {
    // The wrong service is a mistake to report, not a registry without capabilities.
    if (findWrongService(error) !== undefined) throw error
    return { known: false, reason: `GET /.well-known/acdp.json failed (${(error as Error).message})` }
  }
}
