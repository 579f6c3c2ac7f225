/**
 * Cycle detection over the `derived_from` edges a walk followed (RFC-ACDP-0006 §4.1 step 7: content addressing
 * forbids cycles in honest data, so one means a tampered body or a forging registry). A visited set alone cannot
 * tell a cycle from a diamond (two contexts citing one predecessor, which is honest), so the walk checks the
 * discovery path of each edge as it goes (cheap, catches most cycles early) and the whole edge set once at the
 * end (catches cycles closed through a node first reached on another path).
 */

/** Directed edges `from → to` (a context citing a predecessor), in the order the walk followed them. */
export class WalkEdges {
  readonly #out = new Map<string, string[]>()

  add(from: string, to: string): void {
    const list = this.#out.get(from)
    if (list === undefined) this.#out.set(from, [to])
    else list.push(to)
  }

  /**
   * One cycle through the recorded edges, as the ctx_ids around it (first repeated at the end), or `undefined`.
   * Iterative depth-first search with three colours: O(nodes + edges), no recursion depth limit.
   */
  findCycle(): string[] | undefined {
    const state = new Map<string, 'open' | 'done'>()
    for (const start of this.#out.keys()) {
      if (state.has(start)) continue
      const stack: Array<{ id: string; next: number }> = [{ id: start, next: 0 }]
      state.set(start, 'open')
      while (stack.length > 0) {
        const top = stack[stack.length - 1]!
        const targets = this.#out.get(top.id) ?? []
        if (top.next >= targets.length) {
          state.set(top.id, 'done')
          stack.pop()
          continue
        }
        const target = targets[top.next++]!
        const seen = state.get(target)
        if (seen === 'open') {
          const from = stack.findIndex((frame) => frame.id === target)
          return [...stack.slice(from).map((frame) => frame.id), target]
        }
        if (seen === undefined) {
          state.set(target, 'open')
          stack.push({ id: target, next: 0 })
        }
      }
    }
    return undefined
  }
}
