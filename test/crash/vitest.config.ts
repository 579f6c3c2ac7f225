/**
 * The crash suite runs on its own (`npm run test:crash`): it needs the built bins and takes minutes, so it is
 * not part of `npm test`. Same aliases as the root configuration; only its own files.
 */
import { defineConfig } from 'vitest/config'
import root from '../../vitest.config.js'

export default defineConfig({
  ...root,
  test: {
    ...root.test,
    include: ['test/crash/**/*.crash.ts'],
    testTimeout: 15 * 60_000,
    hookTimeout: 120_000,
  },
})
