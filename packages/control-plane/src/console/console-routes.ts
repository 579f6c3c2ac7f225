/**
 * GET /console/*: the web console's static build (packages/console), served by the control plane itself so
 * operators need no second server. Public like any static page: the console holds no data of its own and calls
 * the API with the operator's bearer key, so nothing here bypasses the API's authorization.
 *
 * - CONSOLE_ENABLED=false: no route at all (404 NOT_FOUND like any unknown path).
 * - Build absent: every /console path answers 404 CONSOLE_NOT_BUILT with the fix, and startup logs a warning;
 *   the API keeps working.
 * - Hashed assets (`/console/assets/*`) are immutable for a year; `index.html` is revalidated on every load so
 *   a new build is picked up at once.
 * - Every console response carries a strict Content-Security-Policy: scripts, styles and API calls from this
 *   origin only, no inline script, no framing.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import fastifyStatic from '@fastify/static'
import { ControlPlaneError } from '../core/errors.js'
import { markRoutesPublic, type RoutePlugin } from '../core/route-context.js'

/** Where `npm run build` writes the console (packages/console/dist), from src/routes or dist/routes alike. */
export const DEFAULT_CONSOLE_ASSETS_DIR = fileURLToPath(new URL('../../../console/dist/', import.meta.url))

export const CONSOLE_PATH = '/console'

/**
 * `'unsafe-eval'` is deliberately absent: the verifier's schema compiler falls back to interpretation when eval
 * is refused. `style-src 'unsafe-inline'` is absent too; the console styles with classes from its own sheet.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const IMMUTABLE = 'public, max-age=31536000, immutable'
const REVALIDATE = 'no-cache'

export const consoleRoutes: RoutePlugin = async (app, { config }) => {
  if (!config.console.enabled) return
  markRoutesPublic(app)
  const root = config.console.assetsDir === '' ? DEFAULT_CONSOLE_ASSETS_DIR : config.console.assetsDir

  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('content-security-policy', CONSOLE_CONTENT_SECURITY_POLICY)
    reply.header('x-content-type-options', 'nosniff')
    reply.header('referrer-policy', 'no-referrer')
    reply.header('cross-origin-opener-policy', 'same-origin')
    return payload
  })

  app.get(CONSOLE_PATH, { schema: { summary: 'Redirects to the console (/console/)' } }, async (_request, reply) =>
    reply.redirect(`${CONSOLE_PATH}/`, 301),
  )

  if (!existsSync(join(root, 'index.html'))) {
    app.log.warn(
      { assetsDir: root },
      'console build not found: /console answers 404 CONSOLE_NOT_BUILT until `npm run build` has built packages/console',
    )
    const notBuilt = async () => {
      throw new ControlPlaneError(
        'CONSOLE_NOT_BUILT',
        'the console has not been built on this server; run `npm run build` (or set CONSOLE_ENABLED=false)',
      )
    }
    app.get(`${CONSOLE_PATH}/`, notBuilt)
    app.get(`${CONSOLE_PATH}/*`, notBuilt)
    return
  }

  await app.register(fastifyStatic, {
    root,
    prefix: `${CONSOLE_PATH}/`,
    decorateReply: false,
    index: ['index.html'],
    cacheControl: false,
    dotfiles: 'deny',
    setHeaders: (response, path) => {
      response.header('cache-control', path.includes(`${join('/', 'assets', '/')}`) ? IMMUTABLE : REVALIDATE)
    },
  })
}
