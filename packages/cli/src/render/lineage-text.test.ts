import { describe, expect, it } from 'vitest'
import { type LineageGraph, renderLineageGraph } from './lineage-text.js'
import { abbreviate, renderTable } from './text-table.js'

const A = 'did:key:z6MkAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'
const B = 'did:key:z6MkBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB'
const ctx = (n: number) => `acdp://localhost/00000000-0000-4000-8000-00000000000${n}`
const node = (step: number, agentId: string, contextType: string) => ({
  ctxId: ctx(step),
  agentId,
  contextType,
  visibility: 'public',
  registryAuthority: 'localhost',
  step,
  retracted: false,
})

describe('renderLineageGraph', () => {
  it('names parents by step, labels agents, and counts nodes and edges', () => {
    const graph: LineageGraph = {
      runId: 'run-1',
      nodes: [node(2, B, 'analysis'), node(1, A, 'data_snapshot'), node(3, B, 'prediction')],
      edges: [
        { from: ctx(1), to: ctx(2) },
        { from: ctx(2), to: ctx(3) },
        { from: ctx(1), to: ctx(3) },
      ],
    }
    expect(renderLineageGraph(graph).split('\n')).toEqual([
      'run run-1: 3 contexts, 3 derived_from edges',
      'step  ctx_id                                                 type           agent  derived from',
      `   1  ${ctx(1)}  data_snapshot  A      —`,
      `   2  ${ctx(2)}  analysis       B      1`,
      `   3  ${ctx(3)}  prediction     B      1, 2`,
      'agents:',
      '  A = did:key:z6MkAAAAAAAA…AAAAAAAA',
      '  B = did:key:z6MkBBBBBBBB…BBBBBBBB',
    ])
  })

  it('shows a parent outside the run by ctx_id and marks retracted contexts', () => {
    const outside = 'acdp://elsewhere.example/00000000-0000-4000-8000-000000000009'
    const graph: LineageGraph = {
      runId: 'r',
      nodes: [{ ...node(1, A, 'analysis'), retracted: true }],
      edges: [{ from: outside, to: ctx(1) }],
    }
    expect(renderLineageGraph(graph)).toContain(`${outside} (retracted)`)
  })

  it('marks a node by its status, superseded included, and reads retracted from older control planes', () => {
    const graph = (status: Partial<LineageGraph['nodes'][number]>): LineageGraph => ({
      runId: 'r',
      nodes: [{ ...node(1, A, 'analysis'), ...status }],
      edges: [],
    })
    expect(renderLineageGraph(graph({ status: 'superseded' }))).toContain('— (superseded)')
    expect(renderLineageGraph(graph({ retracted: true, status: 'retracted' }))).toContain('— (retracted)')
    expect(renderLineageGraph(graph({ retracted: true }))).toContain('— (retracted)')
    expect(renderLineageGraph(graph({ status: 'active' }))).not.toContain('(')
  })

  it('renders an empty graph as a header and a count', () => {
    expect(renderLineageGraph({ runId: 'r', nodes: [], edges: [] }).split('\n')[0]).toBe(
      'run r: 0 contexts, 0 derived_from edges',
    )
  })
})

describe('renderTable', () => {
  it('replaces control characters from server strings', () => {
    const table = renderTable([{ header: 'x', cell: (row: string) => row }], ['a\u001b[2Jb\nc'])
    expect(table).toBe('x\na?[2Jb?c')
  })
})

describe('abbreviate', () => {
  it.each([
    ['short text unchanged', 'abcdef', 3, 2, 'abcdef'],
    ['head and tail kept', 'abcdefghij', 3, 2, 'abc…ij'],
    ['head only when tail is 0', 'abcdefghij', 4, 0, 'abcd…'],
  ])('%s', (_name, text, head, tail, expected) => {
    expect(abbreviate(text, head, tail)).toBe(expected)
  })
})
