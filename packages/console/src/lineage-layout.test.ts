import { describe, expect, it } from 'vitest'
import type { RunLineageNode } from './api/types.js'
import {
  HEADING_FONT_PX,
  layoutLineage,
  NODE_PADDING,
  NODE_WIDTH,
  nodeHeading,
  supersessionEdges,
  verdictMarkLeft,
} from './lineage-layout.js'
import { textWidth } from './text-width.js'
import { VERDICT_SYMBOL } from './verify/node-verdict.js'

const node = (ctxId: string, step: number, lineage: Partial<RunLineageNode> = {}): RunLineageNode => ({
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

describe('nodeHeading', () => {
  const end = (heading: ReturnType<typeof nodeHeading>) => heading.x + textWidth(heading.text, HEADING_FONT_PX)
  const superseded = node('old', 0, { contextType: 'analysis', version: 1, status: 'superseded' })

  it('ends a long superseded heading before the verdict mark, with an ellipsis, the full heading kept for the tooltip', () => {
    for (const mark of Object.values(VERDICT_SYMBOL)) {
      const heading = nodeHeading(superseded, mark)
      expect(heading.full).toBe('analysis · v1 (superseded)')
      // Drawn in full, the heading would reach under the mark: that is the case being fitted.
      expect(heading.x + textWidth(heading.full, HEADING_FONT_PX)).toBeGreaterThan(verdictMarkLeft(mark))
      expect(end(heading)).toBeLessThan(verdictMarkLeft(mark))
      // The version and the status stay readable; the type gives way.
      expect(heading.text).toMatch(/^ana[a-z]*… · v1 \(superseded\)$/)
    }
  })

  it('fits a heading of any length, and leaves a short one whole', () => {
    const long = node('long', 0, {
      contextType: 'quarterly-revenue-forecast-reconciliation',
      version: 12,
      status: 'retracted',
    })
    for (const mark of ['✓', undefined]) {
      const heading = nodeHeading(long, mark)
      const room = mark === undefined ? NODE_WIDTH - NODE_PADDING : verdictMarkLeft(mark)
      expect(end(heading)).toBeLessThanOrEqual(room)
      expect(heading.text.endsWith(' · v12 (retracted)')).toBe(true)
    }
    // A status too long for any type still ends before the mark, cut at the end.
    const odd = nodeHeading(
      node('odd', 0, { contextType: 'x', status: 'W'.repeat(40) as RunLineageNode['status'] }),
      '✗',
    )
    expect(end(odd)).toBeLessThan(verdictMarkLeft('✗'))
    expect(odd.text.endsWith('…')).toBe(true)
    expect(nodeHeading(node('short', 0, { version: 2 }), '✓').text).toBe('analysis · v2')
    expect(nodeHeading(null).text).toBe('external parent')
  })

  it('gives the unmarked heading the whole inner width', () => {
    // Without a mark the superseded heading fits whole (DejaVu Sans Bold at 13 px: about 188 of 200 px).
    expect(nodeHeading(superseded).text).toBe('analysis · v1 (superseded)')
  })
})

describe('textWidth', () => {
  it('is additive and grows with the font size', () => {
    expect(textWidth('ab', 10)).toBeCloseTo(textWidth('a', 10) + textWidth('b', 10))
    expect(textWidth('analysis', 26)).toBeCloseTo(2 * textWidth('analysis', 13))
    // An unlisted character (another script) counts as the widest.
    expect(textWidth('漢', 10)).toBeGreaterThan(textWidth('m', 10))
  })
})
