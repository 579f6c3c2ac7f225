/**
 * The console's only way to the control plane: same-origin fetches with the operator's key as a bearer credential.
 * Errors come back in the control plane's envelope `{ statusCode, errorCode, message }` and are thrown as
 * {@link ApiError}, so pages can tell "this feature is not on this server" (404 on a route) from a failure.
 */

/** A non-2xx answer, carrying the envelope's members (or a synthetic one when the body was not an envelope). */
export class ApiError extends Error {
  override readonly name = 'ApiError'
  constructor(
    readonly statusCode: number,
    readonly errorCode: string,
    message: string,
  ) {
    super(message)
  }

  /** The route (or resource) does not exist here: an optional feature the page should degrade around. */
  get isNotFound(): boolean {
    return this.statusCode === 404
  }
}

export type Query = Record<string, string | number | boolean | undefined | null>

/** Builds `path?query`, dropping empty values. */
export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue
    params.set(name, String(value))
  }
  const text = params.toString()
  return text === '' ? path : `${path}?${text}`
}

/** A client bound to one credential. */
export class ApiClient {
  constructor(
    readonly token: string,
    private readonly base = '',
  ) {}

  get<T>(path: string, query?: Query): Promise<T> {
    return this.request<T>('GET', withQuery(path, query))
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('POST', path, body)
  }

  patch<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PATCH', path, body)
  }

  delete(path: string): Promise<void> {
    return this.request<void>('DELETE', path)
  }

  /** Headers every call carries (the stream reader reuses them). */
  headers(): Record<string, string> {
    return { authorization: `Bearer ${this.token}`, accept: 'application/json' }
  }

  url(path: string): string {
    return `${this.base}${path}`
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers = this.headers()
    const init: RequestInit = { method, headers, cache: 'no-store' }
    if (body !== undefined) {
      headers['content-type'] = 'application/json'
      init.body = JSON.stringify(body)
    }
    let response: Response
    try {
      response = await fetch(this.url(path), init)
    } catch (error) {
      throw new ApiError(0, 'NETWORK_ERROR', `the control plane did not answer (${(error as Error).message})`)
    }
    if (response.status === 204) return undefined as T
    const text = await response.text()
    const parsed = parseJson(text)
    if (!response.ok) throw toApiError(response.status, parsed)
    return parsed as T
  }
}

function parseJson(text: string): unknown {
  if (text === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function toApiError(status: number, body: unknown): ApiError {
  if (typeof body === 'object' && body !== null) {
    const envelope = body as { errorCode?: unknown; message?: unknown; error?: { code?: unknown; message?: unknown } }
    if (typeof envelope.errorCode === 'string') {
      return new ApiError(status, envelope.errorCode, String(envelope.message ?? ''))
    }
    // A registry answer relayed verbatim by the federation proxy.
    if (typeof envelope.error?.code === 'string') {
      return new ApiError(status, envelope.error.code, String(envelope.error.message ?? ''))
    }
  }
  return new ApiError(status, `HTTP_${status}`, `the control plane answered ${status}`)
}
