import { describe, expect, it } from 'vitest'
import type { LineageNode } from './api/types.js'
import { layoutLineage, NODE_WIDTH, supersessionEdges } from './lineage-layout.js'

const node = (ctxId: string, step: number, lineage: Partial<LineageNode> = {}): LineageNode => ({
  ctxId,
  step,
  agentId: 'did:key:z6Mk',
  contextType: 'analysis',
  visibility: 'public',
  registryAuthority: 'reg.example',
  lineageId: `lin:${ctxId}`,
  version: 1,
  retracted: false,
  status: 'active' as const,
  ...lineage,
})

const xOf = (layout: ReturnType<typeof layoutLineage>) => Object.fromEntries(layout.nodes.map((n) => [n.ctxId, n.x]))

describe('layoutLineage', () => {
  it('places every context right of its parents (left-to-right layers)', () => {
    const layout = layoutLineage({
      nodes: [node('a', 0), node('b', 1), node('c', 2), node('d', 3)],
      edges: [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
        { from: 'a', to: 'c' },
        { from: 'a', to: 'd' },
      ],
    })
    const x = xOf(layout)
    expect(x['b']!).toBeGreaterThan(x['a']!)
    expect(x['c']!).toBeGreaterThan(x['b']!)
    expect(x['d']!).toBeGreaterThan(x['a']!)
    expect(layout.edges).toHaveLength(4)
    for (const edge of layout.edges) {
      expect(edge.kind).toBe('derived')
      expect(edge.points.length).toBeGreaterThanOrEqual(2)
    }
    // Nodes never overlap.
    for (const p of layout.nodes)
      for (const q of layout.nodes)
        if (p !== q) expect(Math.abs(p.x - q.x) >= NODE_WIDTH || Math.abs(p.y - q.y) >= 64).toBe(true)
    expect(layout.width).toBeGreaterThanOrEqual(Math.max(...layout.nodes.map((n) => n.x + NODE_WIDTH)))
  })

  it('adds an external node for a parent outside the run, and draws its edge', () => {
    const layout = layoutLineage({ nodes: [node('x', 0)], edges: [{ from: 'elsewhere', to: 'x' }] })
    expect(layout.nodes.map((n) => [n.ctxId, n.node === null])).toEqual([
      ['elsewhere', true],
      ['x', false],
    ])
    expect(layout.edges).toHaveLength(1)
  })

  it('draws a supersession edge from each version of a lineage to the next one in the run', () => {
    const v1 = node('v1', 0, { lineageId: 'lin:L', version: 1, status: 'superseded' })
    const v2 = node('v2', 2, { lineageId: 'lin:L', version: 2 })
    const layout = layoutLineage({ nodes: [v1, node('other', 1), v2], edges: [{ from: 'v1', to: 'other' }] })
    expect(layout.edges.map((e) => [e.from, e.to, e.kind])).toEqual([
      ['v1', 'other', 'derived'],
      ['v1', 'v2', 'supersedes'],
    ])
    // Both kinds between the same pair are kept apart (a multigraph), not merged.
    const both = layoutLineage({ nodes: [v1, v2], edges: [{ from: 'v1', to: 'v2' }] })
    expect(both.edges.map((e) => e.kind).sort()).toEqual(['derived', 'supersedes'])
    expect(both.edges.every((e) => e.points.length >= 2)).toBe(true)
  })

  it('terminates on a cycle and on a self-edge (attacker-controlled lineage)', () => {
    const layout = layoutLineage({
      nodes: [node('a', 0), node('b', 1)],
      edges: [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'a' },
        { from: 'a', to: 'a' },
      ],
    })
    expect(layout.nodes).toHaveLength(2)
    expect(layout.edges).toHaveLength(2)
    expect(layout.width).toBeGreaterThanOrEqual(NODE_WIDTH)
  })

  it('draws an empty lineage as an empty canvas', () => {
    const layout = layoutLineage({ nodes: [], edges: [] })
    expect(layout.nodes).toEqual([])
    expect(layout.edges).toEqual([])
  })
})

describe('supersessionEdges', () => {
  it('chains versions in version order and ignores nodes without a lineage', () => {
    const edges = supersessionEdges([
      node('v3', 0, { lineageId: 'lin:L', version: 3 }),
      node('v1', 1, { lineageId: 'lin:L', version: 1 }),
      node('v2', 2, { lineageId: 'lin:L', version: 2 }),
      node('loose', 3, { lineageId: null, version: null }),
    ])
    expect(edges).toEqual([
      { from: 'v1', to: 'v2' },
      { from: 'v2', to: 'v3' },
    ])
  })
})
