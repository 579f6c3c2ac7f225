/**
 * The signed-in credential lives in sessionStorage: it survives a reload of the tab but not the tab itself, and
 * is never written to localStorage, a cookie or a URL. The console only ever sends it as a bearer header.
 */
const STORAGE_KEY = 'acdp-console-api-key'

export function loadStoredKey(): string | undefined {
  try {
    return sessionStorage.getItem(STORAGE_KEY) ?? undefined
  } catch {
    return undefined
  }
}

export function storeKey(key: string): void {
  sessionStorage.setItem(STORAGE_KEY, key)
}

export function clearStoredKey(): void {
  sessionStorage.removeItem(STORAGE_KEY)
}
