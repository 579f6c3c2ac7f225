/** The header's lookup box: opens `#/contexts/<ctx_id>` for a well-formed ctx_id, refuses anything else in words. */
import { useState } from 'preact/hooks'
import { parseCtxIdLookup } from '../contexts/ctx-id-lookup.js'
import { href } from '../router.js'

export function ContextLookup() {
  const [text, setText] = useState('')
  const [problem, setProblem] = useState<string | undefined>(undefined)
  const submit = (event: Event) => {
    event.preventDefault()
    const result = parseCtxIdLookup(text)
    if (!result.ok) {
      setProblem(result.problem)
      return
    }
    setProblem(undefined)
    setText('')
    location.hash = href('contexts', result.ctxId)
  }
  return (
    <form class="lookup" role="search" aria-label="Open a context" onSubmit={submit}>
      <label class="visually-hidden" for="ctx-lookup">
        Open a context by ctx_id
      </label>
      <input
        id="ctx-lookup"
        type="search"
        placeholder="acdp://… ctx_id"
        value={text}
        spellcheck={false}
        autocomplete="off"
        aria-describedby={problem === undefined ? undefined : 'ctx-lookup-problem'}
        aria-invalid={problem === undefined ? undefined : true}
        onInput={(e) => {
          setText((e.target as HTMLInputElement).value)
          setProblem(undefined)
        }}
      />
      <button type="submit" class="secondary">
        Open
      </button>
      {problem !== undefined && (
        <p id="ctx-lookup-problem" class="lookup-problem" role="alert">
          {problem}
        </p>
      )}
    </form>
  )
}
