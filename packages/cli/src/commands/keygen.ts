/**
 * `acdp keygen`: a new producer identity. did:key by default (the DID is the key: nothing to host); with
 * --did-web the key is bound to a did:web DID and the DID document to serve is written beside the key file.
 */
import { closeSync, fchmodSync, openSync, writeSync } from 'node:fs'
import { resolve } from 'node:path'
import {
  buildDidWebDocument,
  createProducerKey,
  didWebToUrl,
  encodeBase64,
  formatKeyFile,
  isProtocolError,
  isSignatureAlgorithm,
} from '@acdp/protocol'
import { type Command, parseCommandArgs } from '../command.js'
import { CliError, EXIT, usageError } from '../exit-codes.js'
import { JSON_OPTION } from './shared-options.js'

/** Key file written when --out is not given. */
export const DEFAULT_KEY_FILE = 'acdp-key.json'

/** `acdp keygen` (help text below is what `acdp keygen --help` prints). */
export const keygenCommand: Command = {
  name: 'keygen',
  summary: 'create a signing key and its DID (did:key by default)',
  help: `Usage: acdp keygen [--out FILE] [--algorithm ed25519|ecdsa-p256] [--did-web HOST[:PATH]] [--force] [--json]

Generates a signing key from the OS random source, writes it to a key file (mode 0600) and prints the DID.
The key file holds the private key in clear: fine for development and CI, not for production keys
(RFC-ACDP-0001 §5.8 "Key storage"; see docs/cli.md).

Options:
  --out FILE            key file to write (default ${DEFAULT_KEY_FILE}); never overwritten without --force
  --algorithm ALG       ed25519 (default) or ecdsa-p256
  --did-web HOST[:PATH] bind the key to did:web:HOST[:PATH] (a port is written %3A, e.g. localhost%3A8443)
                        and also write the DID document to serve, FILE with .did.json
  --fragment F          key id fragment for --did-web (default key-1)
  --force               overwrite existing files
  --json                print { did, key_id, algorithm, public_key, key_file, did_document_file?, did_document_url? }`,
  async run(args, io) {
    const { values } = parseCommandArgs(
      'keygen',
      args,
      {
        ...JSON_OPTION,
        out: { type: 'string' },
        algorithm: { type: 'string' },
        'did-web': { type: 'string' },
        fragment: { type: 'string' },
        force: { type: 'boolean' },
      },
      { min: 0, max: 0, names: '' },
    )
    const algorithm = values.algorithm ?? 'ed25519'
    if (!isSignatureAlgorithm(algorithm)) throw usageError('--algorithm must be ed25519 or ecdsa-p256')
    if (values.fragment !== undefined && values['did-web'] === undefined) throw usageError('--fragment needs --did-web')
    const didWeb = values['did-web'] === undefined ? undefined : toDidWeb(values['did-web'])
    let key: ReturnType<typeof createProducerKey>
    let documentUrl: string | undefined
    try {
      key = createProducerKey({
        algorithm,
        ...(didWeb === undefined ? {} : { didWeb }),
        ...(values.fragment === undefined ? {} : { fragment: values.fragment }),
      })
      documentUrl = didWeb === undefined ? undefined : didWebToUrl(didWeb).href
    } catch (error) {
      if (isProtocolError(error) || error instanceof TypeError) throw usageError(error.message)
      throw error
    }
    const keyFile = resolve(io.cwd, values.out ?? DEFAULT_KEY_FILE)
    const documentFile = didWeb === undefined ? undefined : keyFile.replace(/(\.json)?$/, '.did.json')
    writeNewFile(keyFile, formatKeyFile(key), 0o600, values.force === true)
    if (documentFile !== undefined) {
      writeNewFile(documentFile, `${JSON.stringify(buildDidWebDocument(key), null, 2)}\n`, 0o644, values.force === true)
    }
    if (values.json) {
      const summary = {
        did: key.did,
        key_id: key.keyId,
        algorithm: key.algorithm,
        public_key: encodeBase64(key.publicKey),
        key_file: keyFile,
        ...(documentFile === undefined ? {} : { did_document_file: documentFile, did_document_url: documentUrl }),
      }
      io.stdout(`${JSON.stringify(summary, null, 2)}\n`)
    } else {
      io.stdout(`${key.did}\n`)
      io.stderr(`wrote ${keyFile} (private key, mode 0600)\n`)
      if (documentFile !== undefined) io.stderr(`wrote ${documentFile}: serve it at ${documentUrl}\n`)
    }
    return EXIT.ok
  },
}

/** Accepts `host[:path]` (or a whole `did:web:` DID) and returns the DID. */
function toDidWeb(text: string): string {
  const did = text.startsWith('did:web:') ? text : `did:web:${text}`
  try {
    didWebToUrl(did)
  } catch (error) {
    throw usageError(
      `--did-web ${text} is not a valid did:web host[:path]: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
  return did
}

// Creates the file with its final mode from the start (no window where a private key is world-readable) and
// refuses to replace an existing key unless asked.
function writeNewFile(path: string, text: string, mode: number, overwrite: boolean): void {
  let fd: number
  try {
    fd = openSync(path, overwrite ? 'w' : 'wx', mode)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST') throw usageError(`${path} exists; pass --force to overwrite it`)
    throw new CliError(EXIT.usage, 'write_failed', `cannot write ${path}: ${(error as Error).message}`, {
      cause: error,
    })
  }
  try {
    // open() applies the mode only to a new file; an overwritten one keeps its old mode otherwise.
    fchmodSync(fd, mode)
    writeSync(fd, text)
  } finally {
    closeSync(fd)
  }
}
