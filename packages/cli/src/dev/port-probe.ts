/**
 * Port checks for `acdp dev`: find out before anything starts whether a port is taken, so the user gets one
 * clear line instead of a stack trace from deep inside a listen call.
 */
import { createServer } from 'node:net'

/**
 * Resolves true when `port` can be bound on `host` right now (the probe closes again at once). Any bind
 * error other than "in use"/"not permitted" is reported as not free too.
 */
export function isPortFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.unref()
    server.once('error', () => resolve(false))
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)))
  })
}

/** Asks the OS for a free port on `host` (bind to 0, read it, close). Used for `--registry-port 0` and tests. */
export function findFreePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.once('error', reject)
    server.listen({ host, port: 0, exclusive: true }, () => {
      const address = server.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

/** True for the errno codes a bind failure reports when the port is taken or forbidden. */
export function isPortInUseError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  return code === 'EADDRINUSE' || code === 'EACCES'
}
