/**
 * Copies a text to the clipboard (navigator.clipboard, an event handler — nothing inline, so the console's CSP
 * holds) and says how it went in a polite live region: "copied", or "copy failed" with why (no clipboard in this
 * browser context, or permission refused). The status clears when the text changes.
 */
import { useEffect, useState } from 'preact/hooks'

type Status = { kind: 'idle' } | { kind: 'copied' } | { kind: 'failed'; why: string }

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [status, setStatus] = useState<Status>({ kind: 'idle' })
  useEffect(() => setStatus({ kind: 'idle' }), [text])
  const copy = async () => {
    try {
      if (navigator.clipboard === undefined) throw new Error('no clipboard in this browser context')
      await navigator.clipboard.writeText(text)
      setStatus({ kind: 'copied' })
    } catch (error) {
      setStatus({ kind: 'failed', why: error instanceof Error ? error.message : String(error) })
    }
  }
  return (
    <span class="copy">
      <button type="button" class="secondary" onClick={() => void copy()}>
        {label}
      </button>{' '}
      <span role="status" data-copy-status={status.kind} class={status.kind === 'failed' ? 'error' : 'muted'}>
        {status.kind === 'copied' ? 'copied' : status.kind === 'failed' ? `copy failed: ${status.why}` : ''}
      </span>
    </span>
  )
}
