/**
 * Installs the `buffer` package as the `Buffer` global before @acdp/protocol/verify loads: the protocol's shared
 * modules use Buffer for hex and base64 (some at module evaluation), and browsers have none. main.tsx imports this
 * first, so ES module evaluation order guarantees it runs before any protocol module.
 */
import { Buffer } from 'buffer'

const scope = globalThis as unknown as { Buffer?: unknown }
scope.Buffer ??= Buffer
