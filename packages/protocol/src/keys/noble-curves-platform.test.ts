import { ed25519 } from '@noble/curves/ed25519.js'
import { p256 } from '@noble/curves/nist.js'
import { describe, expect, it } from 'vitest'
import * as browser from './noble-curves-platform.browser.js'
import { nobleEd25519, nobleP256 } from './noble-curves-platform.js'

describe('@noble/curves loaded on first use', () => {
  it('is the module instance a static import gets, on Node and in the browser twin', () => {
    expect(nobleEd25519()).toBe(ed25519)
    expect(nobleP256()).toBe(p256)
    expect(browser.nobleEd25519()).toBe(ed25519)
    expect(browser.nobleP256()).toBe(p256)
  })
})
