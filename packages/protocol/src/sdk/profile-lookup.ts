/**
 * The advertised profiles of each registry a verification reads evidence from (GET /.well-known/acdp.json,
 * RFC-ACDP-0007 §3), fetched once per registry per lookup through the caller's {@link RegistryJsonReader}. A
 * registry whose capabilities cannot be read gets `known: false` with the reason, which the verification summary
 * repeats.
 */
import { readAdvertisedProfiles, type RegistryProfiles } from './registry-profiles.js'
import type { RegistryJsonReader } from './registry-json.js'

/** The profiles of `registryUrl`, memoized by URL. */
export type ProfileLookup = (registryUrl: string) => Promise<RegistryProfiles>

export interface ProfileLookupOptions {
  /**
   * True for a read failure that is a mistake to report rather than a registry without capabilities (the CLI's
   * "this URL is a control plane"): it is rethrown instead of becoming `known: false`.
   */
  rethrow?: (error: unknown) => boolean
}

/** A lookup that asks each registry once; concurrent callers share the one request. */
export function createProfileLookup(read: RegistryJsonReader, options: ProfileLookupOptions = {}): ProfileLookup {
  const byRegistry = new Map<string, Promise<RegistryProfiles>>()
  return (registryUrl) => {
    const key = registryUrl.replace(/\/+$/, '')
    let pending = byRegistry.get(key)
    if (pending === undefined) {
      pending = readProfiles(read, key, options)
      byRegistry.set(key, pending)
    }
    return pending
  }
}

async function readProfiles(
  read: RegistryJsonReader,
  registryUrl: string,
  options: ProfileLookupOptions,
): Promise<RegistryProfiles> {
  try {
    const answer = await read(registryUrl, '/.well-known/acdp.json')
    if (answer.status !== 200) {
      return { known: false, reason: `GET /.well-known/acdp.json answered HTTP ${answer.status}` }
    }
    return readAdvertisedProfiles(answer.body)
  } catch (error) {
    if (options.rethrow?.(error) === true) throw error
    return { known: false, reason: `GET /.well-known/acdp.json failed (${(error as Error).message})` }
  }
}
