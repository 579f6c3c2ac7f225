// Vite build of the console: static assets under dist/, served by the control plane at /console/.
import { defineConfig } from 'vite'

export default defineConfig({
  base: '/console/',
  // JSX compiled for Preact (automatic runtime); no React in the bundle.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // The preload polyfill would be inline-able script; the strict CSP allows none, and every target browser
    // supports modulepreload natively.
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
  },
  // `browser` first so @acdp/protocol's package.json "browser" map swaps its Node platform files for the
  // @noble twins.
  resolve: { mainFields: ['browser', 'module', 'main'], conditions: ['browser', 'import', 'default'] },
})
