/** Domain packs shipped with the control plane, selectable by id in `DOMAIN_PACKS`. */
import type { DomainPack } from './domain-packs.js'
import { FINANCE_PACK } from './finance.js'

export const BUILT_IN_DOMAIN_PACKS: ReadonlyMap<string, DomainPack> = new Map([[FINANCE_PACK.id, FINANCE_PACK]])
