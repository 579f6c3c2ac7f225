/**
 * Hash routing (`#/runs/<id>`): the control plane serves one static index.html, so deep links need no server
 * fallback, and a reload keeps the page.
 */
import { useEffect, useState } from 'preact/hooks'

export interface Route {
  /** First path segment: `dashboard`, `runs`, `events`, … */
  page: string
  /** Remaining segments, decoded. */
  params: string[]
  query: URLSearchParams
}

export function parseRoute(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#/, '').split('?', 2)
  const segments = path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => {
      try {
        return decodeURIComponent(segment)
      } catch {
        return segment
      }
    })
  return { page: segments[0] ?? 'dashboard', params: segments.slice(1), query: new URLSearchParams(search) }
}

/** The current route, updated on every hash change. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash))
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash))
    addEventListener('hashchange', update)
    return () => removeEventListener('hashchange', update)
  }, [])
  return route
}

/** `#/runs/<encoded id>` style links. */
export function href(...segments: string[]): string {
  return `#/${segments.map(encodeURIComponent).join('/')}`
}
