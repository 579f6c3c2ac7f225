import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const pkg = (name: string) => fileURLToPath(new URL(`./packages/${name}/src/index.ts`, import.meta.url))

export default defineConfig({
  resolve: {
    // Tests run against the TypeScript sources of sibling workspaces, not their build output.
    alias: {
      '@acdp/protocol/verify': fileURLToPath(new URL('./packages/protocol/src/verify.ts', import.meta.url)),
      '@acdp/protocol': pkg('protocol'),
      '@acdp/storage': pkg('storage'),
      '@acdp/service-kit': pkg('service-kit'),
      '@acdp/registry': pkg('registry'),
      '@acdp/control-plane': pkg('control-plane'),
      '@acdp/cli': pkg('cli'),
      '@acdp/mcp': pkg('mcp'),
    },
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'test/**/*.test.ts', 'bench/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
})
