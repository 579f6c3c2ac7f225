import { describe, expect, it } from 'vitest'
import { listRoutes } from './route-list.js'

// The shape Fastify 5 prints for printRoutes({ commonPrefix: true }): split prefixes and wildcard children.
const TREE = [
  '└── /',
  '    ├── healthz (GET, HEAD)',
  '    ├── c',
  '    │   ├── on',
  '    │   │   ├── sole (GET, HEAD)',
  '    │   │   │   └── / (GET, HEAD)',
  '    │   │   │       └── * (GET, HEAD)',
  '    │   │   └── texts/',
  '    │   │       └── * (GET, HEAD, POST)',
  '    │   └── apabilities (POST)',
  '    │       └── /',
  '    │           └── by-agent/',
  '    │               └── * (GET, HEAD)',
  '    └── webhooks (POST, GET, HEAD)',
  '        └── /',
  '            └── :id (GET, HEAD, PATCH, DELETE)',
].join('\n')

describe('listRoutes', () => {
  it('joins split prefixes into full paths, keeps wildcards under their static prefix, and drops HEAD', () => {
    expect(listRoutes(TREE)).toEqual([
      'DELETE /webhooks/:id',
      'GET /capabilities/by-agent/*',
      'GET /console',
      'GET /console/',
      'GET /console/*',
      'GET /contexts/*',
      'GET /healthz',
      'GET /webhooks',
      'GET /webhooks/:id',
      'PATCH /webhooks/:id',
      'POST /capabilities',
      'POST /contexts/*',
      'POST /webhooks',
    ])
  })
})
