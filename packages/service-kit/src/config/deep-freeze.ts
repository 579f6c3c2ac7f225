/**
 * Freezes `value` and everything reachable from it, and returns it: a loaded configuration is shared by every
 * part of a server, so none of them can change what another one reads.
 *
 * Typed arrays (a key seed) are left as they are: `Object.freeze` refuses a non-empty one. An object frozen
 * already is not walked again, which also ends a cycle.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value) && !ArrayBuffer.isView(value)) {
    Object.freeze(value)
    for (const member of Object.values(value)) deepFreeze(member)
  }
  return value
}
