// Lint configuration: ESLint's and typescript-eslint's recommended rules over every package, tests and benches.
import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/data/**', '**/coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // Fixture JSON and driver rows are untyped by nature; `any` there is a choice, flagged but not fatal.
      '@typescript-eslint/no-explicit-any': 'warn',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      'no-control-regex': 'off',
    },
  },
  {
    // The console runs in the browser.
    files: ['packages/console/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // The committed bin launchers and the shared launcher they load check the Node.js version before anything
    // else, so they must parse on any Node.js: ES5 script syntax only (test/launchers.test.ts runs them under an
    // old version).
    files: ['packages/*/bin/*.js', 'packages/service-kit/launcher/*.cjs'],
    languageOptions: { ecmaVersion: 5, sourceType: 'script' },
  },
)
