/**
 * A throwaway PKI for TLS tests, generated in the test run with the `openssl` CLI (keys never committed):
 * one CA and one server certificate whose SANs cover the fake hostnames and loopback addresses the suites use.
 * EC P-256 keeps generation in the tens of milliseconds.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface TestPki {
  /** PEM of the CA certificate: pass it in `trustedCaCertificates`. */
  caPem: string
  /** PEM of the server's private key. */
  keyPem: string
  /** PEM of the server certificate, signed by the CA. */
  certPem: string
}

export interface TestPkiNames {
  dnsNames: string[]
  ipAddresses: string[]
}

/** Creates a CA and a server certificate for `names` in a temp dir, reads the PEMs and removes the dir. */
export function createTestPki(names: TestPkiNames, commonName = 'ACDP outbound test CA'): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'acdp-test-pki-'))
  const openssl = (...args: string[]) =>
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] })
  try {
    openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'ca.key')
    openssl(
      'req',
      '-x509',
      '-new',
      '-key',
      'ca.key',
      '-subj',
      `/CN=${commonName}`,
      '-days',
      '2',
      '-sha256',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-out',
      'ca.crt',
    )
    openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'server.key')
    openssl(
      'req',
      '-new',
      '-key',
      'server.key',
      '-subj',
      `/CN=${names.dnsNames[0] ?? 'localhost'}`,
      '-out',
      'server.csr',
    )
    const san = [...names.dnsNames.map((n) => `DNS:${n}`), ...names.ipAddresses.map((ip) => `IP:${ip}`)].join(',')
    writeFileSync(
      join(dir, 'server.ext'),
      [
        `subjectAltName=${san}`,
        'basicConstraints=critical,CA:FALSE',
        'keyUsage=critical,digitalSignature',
        'extendedKeyUsage=serverAuth',
        '',
      ].join('\n'),
    )
    openssl(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-set_serial',
      `0x${randomBytes(8).toString('hex')}`,
      '-days',
      '2',
      '-sha256',
      '-extfile',
      'server.ext',
      '-out',
      'server.crt',
    )
    return {
      caPem: readFileSync(join(dir, 'ca.crt'), 'utf8'),
      keyPem: readFileSync(join(dir, 'server.key'), 'utf8'),
      certPem: readFileSync(join(dir, 'server.crt'), 'utf8'),
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
