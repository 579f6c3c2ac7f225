/** The registry's migrations, in application order. Never rename or edit an applied one; add a new file. */
import type { Migration } from '@acdp/storage'
import { migration0001RegistryCore } from './0001-registry-core.js'
import { migration0002RegistryTrust } from './0002-registry-trust.js'
import { migration0003RegistryLifecycle } from './0003-registry-lifecycle.js'
import { migration0004RegistryAuth } from './0004-registry-auth.js'
import { migration0005RegistryTenancy } from './0005-registry-tenancy.js'
import { migration0006RegistryRateLimit } from './0006-registry-rate-limit.js'
import { migration0007RegistryWalPages } from './0007-registry-wal-pages.js'
import { migration0008RegistryLogLeafFacts } from './0008-registry-log-leaf-facts.js'

export const REGISTRY_MIGRATIONS: readonly Migration[] = [
  migration0001RegistryCore,
  migration0002RegistryTrust,
  migration0003RegistryLifecycle,
  migration0004RegistryAuth,
  migration0005RegistryTenancy,
  migration0006RegistryRateLimit,
  migration0007RegistryWalPages,
  migration0008RegistryLogLeafFacts,
]

/** Name of the registry's migration bookkeeping table. */
export const REGISTRY_MIGRATION_TABLE = 'registry_migration'
