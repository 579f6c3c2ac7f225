#!/usr/bin/env node
// Committed launcher: npm links a workspace bin at install time only if the file exists, and dist/ is built
// later (`npm run build`, or `npm start`). This file always exists and loads the built entry point.
import { existsSync } from 'node:fs'

const entry = new URL('../dist/bin/acdp.js', import.meta.url)
if (!existsSync(entry)) {
  console.error('acdp: the build output is missing; run `npm run build` (or `npm start`) in the repository first')
  process.exit(2)
}
await import(entry.href)
