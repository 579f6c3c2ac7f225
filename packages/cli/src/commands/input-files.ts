/**
 * Files commands read their input from: a secret (never taken from the command line, which every user of the
 * machine can see) and JSON documents. Every problem with such a file is the caller's to fix: exit 2.
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseJsonStrict } from '@acdp/protocol'
import type { CliIo } from '../command.js'
import { CliError, EXIT, usageError } from '../exit-codes.js'

/** The control plane's minimum webhook secret length. */
export const MIN_SECRET_LENGTH = 16

/** The text of `path` ("-" is standard input). @throws CliError `usage` when unreadable. */
export function readInputFile(io: Pick<CliIo, 'cwd'>, what: string, path: string): { fullPath: string; text: string } {
  const fullPath = path === '-' ? '/dev/stdin' : resolve(io.cwd, path)
  try {
    return { fullPath, text: readFileSync(fullPath, 'utf8') }
  } catch (error) {
    throw new CliError(EXIT.usage, 'usage', `cannot read ${what} file ${fullPath}: ${(error as Error).message}`, {
      cause: error,
    })
  }
}

/** The secret held in `path`, trimmed. @throws CliError `usage` when unreadable or too short. */
export function readSecretFile(io: Pick<CliIo, 'cwd'>, path: string): string {
  const { fullPath, text } = readInputFile(io, 'secret', path)
  const secret = text.trim()
  if (secret.length < MIN_SECRET_LENGTH || /[\r\n]/.test(secret)) {
    throw usageError(`${fullPath} must hold one line of at least ${MIN_SECRET_LENGTH} characters`)
  }
  return secret
}

/** The JSON document in `path`, parsed strictly. @throws CliError `usage` when unreadable or not JSON. */
export function readJsonFile(io: Pick<CliIo, 'cwd'>, what: string, path: string): { fullPath: string; value: unknown } {
  const { fullPath, text } = readInputFile(io, what, path)
  try {
    return { fullPath, value: parseJsonStrict(text) }
  } catch (error) {
    throw new CliError(EXIT.usage, 'usage', `${fullPath} is not valid JSON: ${(error as Error).message}`)
  }
}
