/**
 * A pino-compatible logger that keeps every line it is given, with its level, so a suite can count what a
 * service would have written at a level (log volume tests). Children share the parent's lines and level.
 */
import type { FastifyBaseLogger } from 'fastify'

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const
type LevelName = keyof typeof LEVELS

export interface RecordedLine {
  level: LevelName
  object: unknown
  message: string | undefined
}

export interface RecordingLogger {
  logger: FastifyBaseLogger
  lines: RecordedLine[]
  /** Lines at `level` or above, as the same logger set to `level` would have written them. */
  atOrAbove(level: LevelName): RecordedLine[]
}

export function createRecordingLogger(): RecordingLogger {
  const lines: RecordedLine[] = []
  const write =
    (level: LevelName) =>
    (object: unknown, message?: string): void => {
      lines.push(typeof object === 'string' ? { level, object: {}, message: object } : { level, object, message })
    }
  const logger = {
    level: 'trace',
    trace: write('trace'),
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    fatal: write('fatal'),
    silent: () => {},
    child: () => logger,
  } as unknown as FastifyBaseLogger
  return {
    logger,
    lines,
    atOrAbove: (level) => lines.filter((line) => LEVELS[line.level] >= LEVELS[level]),
  }
}
