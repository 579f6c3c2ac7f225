import { readFileSync } from 'node:fs'
import { describeEnv } from '@acdp/service-kit'
import { describe, expect, it } from 'vitest'
import { CONTROL_PLANE_VARIABLES } from './config-variables.js'
import { ConfigError, loadConfig } from './config.js'

const PAGE = new URL('../../../../docs/control-plane/configuration.md', import.meta.url)

/** The documented rows: each table row's first cell names one or more variables in backticks. */
function documentedRows(): { names: string[]; defaultCell: string }[] {
  return readFileSync(PAGE, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [, first = '', defaultCell = ''] = line.split('|').map((cell) => cell.trim())
      return { names: [...first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1] as string), defaultCell }
    })
}

const variables = describeEnv(CONTROL_PLANE_VARIABLES)

describe('docs/control-plane/configuration.md', () => {
  it('documents every variable of config-variables.ts, and only those', () => {
    const documented = documentedRows().flatMap((row) => row.names)
    const declared = variables.map((v) => v.name)
    expect(
      documented.filter((name) => !declared.includes(name)),
      'documented but not read',
    ).toEqual([])
    expect(
      declared.filter((name) => !documented.includes(name)),
      'read but not documented',
    ).toEqual([])
    expect(
      documented.filter((name, i) => documented.indexOf(name) !== i),
      'documented twice',
    ).toEqual([])
  })

  it('gives the declared default wherever a row states a single value', () => {
    const mismatches: string[] = []
    for (const row of documentedRows()) {
      // A row of one variable whose default cell is one literal (`3001`, `info`), optionally followed by a remark.
      const literal = /^`([^`]+)`(?: \(.*\))?$/.exec(row.defaultCell)?.[1]
      if (row.names.length !== 1 || literal === undefined) continue
      const declared = variables.find((v) => v.name === row.names[0])
      if (declared !== undefined && declared.default !== '' && declared.default !== literal) {
        mismatches.push(`${declared.name}: documented ${literal}, declared ${declared.default}`)
      }
    }
    expect(mismatches).toEqual([])
  })
})

describe('config-variables.ts', () => {
  it('declares the variables loadConfig refuses by name', () => {
    // Each declared variable set to a value no kind accepts except string: a refusal, when there is one, names it.
    for (const { name, kind } of variables) {
      if (kind === 'string' || kind === 'list') continue
      let problems: readonly string[] = []
      try {
        loadConfig({ [name]: 'not-a-value' })
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error
        problems = error.problems
      }
      const isUnreadHere = name.startsWith('OTEL_') && name !== 'OTEL_SDK_DISABLED'
      expect(
        problems.some((p) => p.startsWith(`${name} must be`)),
        name,
      ).toBe(!isUnreadHere)
    }
  })
})
