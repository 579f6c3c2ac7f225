/**
 * The TypeBox schemas of the JSON the control plane answers, which its route files use as response schemas
 * (OpenAPI documentation and serializers) and which the console reads as types (`import type` and
 * `Static<typeof …>`, through the package's `./response-schemas` export). These modules import nothing but
 * `typebox`, so a type-only import from them brings no server code into a client (test/architecture.test.ts).
 */
export * from './agents.js'
export * from './auth.js'
export * from './capabilities.js'
export * from './context-search.js'
export * from './dashboard.js'
export * from './events.js'
export * from './receipt-audit.js'
export * from './registries.js'
export * from './runs.js'
export * from './session.js'
export * from './stream-event.js'
export * from './webhooks.js'
export * from './witness.js'
