/**
 * The entries of a list written as one string (an environment variable): split on `separator`, each entry
 * trimmed, empty entries dropped, so `a, b,,c ` and `a,b,c` name the same three.
 */
export function listEntries(text: string, separator: string): string[] {
  return text
    .split(separator)
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
}
