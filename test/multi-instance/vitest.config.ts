/**
 * The multi-instance suite runs on its own (`npm run test:multi-instance`): it needs the built bins, PostgreSQL
 * and HAProxy, and takes minutes, so it is not part of `npm test`. Same aliases as the root configuration.
 */
import { defineConfig } from 'vitest/config'
import root from '../../vitest.config.js'

export default defineConfig({
  ...root,
  test: {
    ...root.test,
    include: ['test/multi-instance/**/*.multi.ts'],
    testTimeout: 15 * 60_000,
    hookTimeout: 120_000,
  },
})
