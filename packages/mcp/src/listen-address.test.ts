import { describe, expect, it } from 'vitest'
import { isLoopbackHost } from './listen-address.js'

describe('isLoopbackHost', () => {
  it.each(['127.0.0.1', '127.8.9.1', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1'])('%s is loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(true)
  })
  it.each(['0.0.0.0', '::', '10.0.0.5', '192.168.1.2', 'example.com', '128.0.0.1'])('%s is not', (host) => {
    expect(isLoopbackHost(host)).toBe(false)
  })
})
