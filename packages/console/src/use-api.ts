/**
 * Loading state of one API read, re-run when its key changes. Pages render `loading`, `error` (an ApiError; a 404
 * is how optional features say they are absent) or `data`.
 */
import { createContext } from 'preact'
import { useCallback, useContext, useEffect, useState } from 'preact/hooks'
import { ApiError, type ApiClient } from './api/client.js'
import type { Session } from './api/types.js'

export interface ConsoleContext {
  client: ApiClient
  session: Session
}

export const Console = createContext<ConsoleContext | undefined>(undefined)

export function useConsole(): ConsoleContext {
  const value = useContext(Console)
  if (value === undefined) throw new Error('useConsole outside the signed-in app')
  return value
}

export interface Loaded<T> {
  data: T | undefined
  error: ApiError | undefined
  loading: boolean
  reload(): void
}

export function useApi<T>(load: (client: ApiClient) => Promise<T>, key: unknown[]): Loaded<T> {
  const { client } = useConsole()
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: true })
  const [generation, setGeneration] = useState(0)
  useEffect(() => {
    let current = true
    setState((previous) => ({ ...previous, loading: true }))
    load(client).then(
      (data) => current && setState({ data, loading: false }),
      (error: unknown) =>
        current &&
        setState({
          loading: false,
          error: error instanceof ApiError ? error : new ApiError(0, 'CLIENT_ERROR', String(error)),
        }),
    )
    return () => {
      current = false
    }
  }, [client, generation, ...key])
  const reload = useCallback(() => setGeneration((g) => g + 1), [])
  return { data: state.data, error: state.error, loading: state.loading, reload }
}
