/**
 * A relay in front of a control plane's listener for the cross-package suites: forwards each request while up and
 * answers 503 while `down`, so a test can take "the control plane" down for a registry's best-effort webhooks.
 */
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface WebhookRelay {
  server: Server
  url: string
  setDown(down: boolean): void
  /** Requests answered 503 so far. */
  refused(): number
  /** Every request forwarded so far, with the control plane's answer, in arrival order. */
  forwarded: ForwardedDelivery[]
}

/** One delivery the relay passed on: what the sender sent and what the control plane answered. */
export interface ForwardedDelivery {
  headers: Record<string, string>
  body: Buffer
  status: number
}

export async function startRelay(target: () => string): Promise<WebhookRelay> {
  let isDown = false
  let refusedCount = 0
  const forwarded: ForwardedDelivery[] = []
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    if (isDown) {
      refusedCount += 1
      return void res.writeHead(503).end()
    }
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string' && name !== 'host' && name !== 'content-length' && name !== 'connection') {
        headers[name] = value
      }
    }
    const body = Buffer.concat(chunks)
    const answer = await fetch(`${target()}${req.url ?? '/'}`, { method: req.method, headers, body })
    forwarded.push({ headers, body, status: answer.status })
    res.writeHead(answer.status).end(Buffer.from(await answer.arrayBuffer()))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setDown(down) {
      isDown = down
    },
    refused: () => refusedCount,
    forwarded,
  }
}
