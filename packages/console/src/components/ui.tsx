/** Small shared pieces: formatted times, status badges, verdict marks, loading/error panels, a pager. */
import type { ComponentChildren } from 'preact'
import type { ApiError } from '../api/client.js'
import type { Mark } from '../verify/inspect-context.js'

export function Time({ value }: { value: string | null | undefined }) {
  if (!value) return <span class="muted">—</span>
  const date = new Date(value)
  return (
    <time dateTime={value} title={value}>
      {Number.isNaN(date.getTime()) ? value : date.toLocaleString()}
    </time>
  )
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status.replace(/[^a-z_]/g, '')}`}>{status}</span>
}

const MARK_TEXT: Record<Mark, string> = {
  verified: 'verified',
  failed: 'failed',
  not_available: 'not available',
  not_checked: 'not checked',
}
const MARK_SYMBOL: Record<Mark, string> = { verified: '✓', failed: '✗', not_available: '–', not_checked: '?' }

export function VerdictMark({ mark }: { mark: Mark }) {
  return (
    <span class={`mark mark-${mark}`} data-mark={mark}>
      <span aria-hidden="true">{MARK_SYMBOL[mark]} </span>
      {MARK_TEXT[mark]}
    </span>
  )
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  )
}

export function ErrorPanel({ error, what }: { error: ApiError; what: string }) {
  return (
    <p class="error" role="alert">
      Could not load {what}: {error.message || error.errorCode} ({error.errorCode})
    </p>
  )
}

/** An optional feature's section: hidden behind a clear note when the server answers 404 for its route. */
export function Unavailable({ feature }: { feature: string }) {
  return (
    <p class="muted" data-unavailable={feature}>
      {feature} is not available on this control plane.
    </p>
  )
}

export function Section({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) {
  const headingId = `${id ?? title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-heading`
  return (
    <section aria-labelledby={headingId} class="panel">
      <h2 id={headingId}>{title}</h2>
      {children}
    </section>
  )
}

export function Truncated({ value, max = 48 }: { value: string | null; max?: number }) {
  if (value === null) return <span class="muted">—</span>
  if (value.length <= max) return <span>{value}</span>
  return <span title={value}>{`${value.slice(0, max - 12)}…${value.slice(-10)}`}</span>
}
