import { describe, expect, it } from 'vitest'
import type { LineageNode } from './api/types.js'
import { layoutLineage, NODE_WIDTH } from './lineage-layout.js'

const node = (ctxId: string, step: number): LineageNode => ({
  ctxId,
  step,
  agentId: 'did:key:z6Mk',
  contextType: 'analysis',
  visibility: 'public',
  registryAuthority: 'reg.example',
  retracted: false,
  status: 'active' as const,
})

const layers = (layout: ReturnType<typeof layoutLineage>) =>
  Object.fromEntries(layout.nodes.map((n) => [n.ctxId, n.layer]))

describe('layoutLineage', () => {
  it('puts each context one layer right of its deepest parent', () => {
    const layout = layoutLineage({
      nodes: [node('a', 0), node('b', 1), node('c', 2), node('d', 3)],
      edges: [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
        { from: 'a', to: 'c' },
        { from: 'a', to: 'd' },
      ],
    })
    expect(layers(layout)).toEqual({ a: 0, b: 1, c: 2, d: 1 })
    expect(layout.edges).toHaveLength(4)
    for (const edge of layout.edges) expect(edge.x2).toBeGreaterThan(edge.x1)
  })

  it('adds an external node for a parent outside the run, and draws its edge', () => {
    const layout = layoutLineage({ nodes: [node('x', 0)], edges: [{ from: 'elsewhere', to: 'x' }] })
    expect(layout.nodes.map((n) => [n.ctxId, n.layer, n.node === null])).toEqual([
      ['elsewhere', 0, true],
      ['x', 1, false],
    ])
    expect(layout.edges).toHaveLength(1)
  })

  it('keeps existing positions when a new context is appended (live updates do not reshuffle)', () => {
    const before = layoutLineage({ nodes: [node('a', 0), node('b', 1)], edges: [{ from: 'a', to: 'b' }] })
    const after = layoutLineage({
      nodes: [node('a', 0), node('b', 1), node('c', 2)],
      edges: [
        { from: 'a', to: 'b' },
        { from: 'a', to: 'c' },
      ],
    })
    for (const placed of before.nodes) {
      expect(after.nodes.find((n) => n.ctxId === placed.ctxId)).toMatchObject({ x: placed.x, y: placed.y })
    }
    expect(after.height).toBeGreaterThan(before.height)
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
    expect(layout.width).toBeGreaterThanOrEqual(NODE_WIDTH)
  })

  it('draws an empty lineage as an empty canvas', () => {
    const layout = layoutLineage({ nodes: [], edges: [] })
    expect(layout.nodes).toEqual([])
    expect(layout.edges).toEqual([])
  })
})
