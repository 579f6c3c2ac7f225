/**
 * The committed bin launchers (acdp, acdp-registry, acdp-control-plane) load the service kit's shared launcher
 * (`@acdp/service-kit/launcher`), which refuses a Node.js older than 24 with one line naming what they need, what
 * they found and the command that works, before loading anything else.
 *
 * An old Node is simulated by a preload that rewrites process.version(s) on the current Node, and, when the
 * machine has one (e.g. /usr/bin/node 20 beside the pinned Node 24), run for real.
 */
import { spawnSync } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Linter } from 'eslint'
import { afterAll, describe, expect, it } from 'vitest'

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)))
const SHARED_LAUNCHER = 'packages/service-kit/launcher/launch.cjs'
const LAUNCHERS = [
  { name: 'acdp', file: 'packages/cli/bin/acdp.js', entry: 'dist/bin/acdp.js' },
  { name: 'acdp-registry', file: 'packages/registry/bin/acdp-registry.js', entry: 'dist/main.js' },
  { name: 'acdp-control-plane', file: 'packages/control-plane/bin/acdp-control-plane.js', entry: 'dist/main.js' },
]

/** A preload making the current Node report itself as `version` (both process.version and process.versions). */
function fakeVersion(version: string): string[] {
  const source =
    `Object.defineProperty(process, 'version', { value: 'v${version}' });` +
    `Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '${version}' } })`
  return ['--import', `data:text/javascript,${encodeURIComponent(source)}`]
}

/**
 * Installs the service kit in `pkg`'s node_modules as npm would (a link to the workspace package), so a bin copied
 * alone into `pkg` finds its shared launcher and nothing else of the repository.
 */
function linkServiceKit(pkg: string): void {
  const link = join(pkg, 'node_modules', '@acdp', 'service-kit')
  if (existsSync(link)) return
  mkdirSync(join(link, '..'), { recursive: true })
  symlinkSync(join(ROOT, 'packages', 'service-kit'), link)
}

function run(node: string, args: string[]) {
  const result = spawnSync(node, args, { cwd: ROOT, encoding: 'utf8', timeout: 20_000, env: { ...process.env } })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** A `node` on PATH (outside node_modules) older than 24, with its version, if the machine has one. */
function findOldNode(): { path: string; version: string } | undefined {
  const candidates = [...(process.env['PATH'] ?? '').split(delimiter).filter((dir) => !dir.includes('node_modules'))]
  for (const dir of new Set(candidates)) {
    const path = join(dir, 'node')
    const probe = spawnSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 10_000 })
    const version = probe.status === 0 ? probe.stdout.trim() : ''
    if (/^\d+\./.test(version) && Number(version.split('.')[0]) < 24) return { path, version }
  }
  return undefined
}

function expectRefusal(result: ReturnType<typeof run>, name: string, version: string, shownArgs: string): void {
  expect(result.status).toBe(4)
  expect(result.stdout).toBe('')
  const lines = result.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('npm warn'))
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(
    new RegExp(
      `^${name}: needs Node\\.js 24 or newer, found v${version.replaceAll('.', '\\.')} \\(.+\\); ` +
        `run \`npx ${name}${shownArgs.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\` in the repository ` +
        `\\(npx uses its pinned Node\\.js 24\\) or install Node\\.js 24$`,
    ),
  )
}

describe('bin launchers on an old Node.js', () => {
  const dirs: string[] = []
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  it.each(LAUNCHERS)('$name refuses Node 18 with one line and exit code 4', ({ name, file }) => {
    const result = run(process.execPath, [...fakeVersion('18.19.1'), file, '--config', 'my registry.toml'])
    expectRefusal(result, name, '18.19.1', " --config 'my registry.toml'")
  })

  const oldNode = findOldNode()
  it.runIf(oldNode !== undefined).each(LAUNCHERS)('$name refuses the machine’s old Node for real', ({ name, file }) => {
    const result = run(oldNode!.path, [file, 'dev'])
    expectRefusal(result, name, oldNode!.version, ' dev')
  })

  it.each([...LAUNCHERS, { name: 'the shared launcher', file: SHARED_LAUNCHER }])(
    '$name is ES5 script syntax, which every Node.js parses',
    ({ file }) => {
      const messages = new Linter().verify(readFileSync(join(ROOT, file), 'utf8'), {
        languageOptions: { ecmaVersion: 5, sourceType: 'script' },
      })
      expect(messages.filter((message) => message.fatal)).toEqual([])
    },
  )

  it.each(LAUNCHERS)('$name on Node 24 loads its entry through a symlinked bin, or says the build is missing', (l) => {
    const dir = mkdtempSync(join(tmpdir(), 'acdp-launcher-'))
    dirs.push(dir)
    const pkg = join(dir, 'pkg')
    mkdirSync(join(pkg, 'bin'), { recursive: true })
    writeFileSync(join(pkg, 'package.json'), '{ "type": "module" }')
    copyFileSync(join(ROOT, l.file), join(pkg, 'bin', `${l.name}.js`))
    linkServiceKit(pkg)
    symlinkSync(join(pkg, 'bin', `${l.name}.js`), join(dir, l.name))

    const missing = run(process.execPath, [join(dir, l.name)])
    expect(missing.status).toBe(2)
    expect(missing.stderr).toBe(
      `${l.name}: the build output is missing; run \`npm run build\` (or \`npm start\`) in the repository first\n`,
    )

    mkdirSync(join(pkg, l.entry, '..'), { recursive: true })
    writeFileSync(join(pkg, l.entry), 'console.log(`entry ran with ${process.argv.slice(2).join(" ")}`)\n')
    const loaded = run(process.execPath, [join(dir, l.name), 'a', 'b'])
    expect(loaded).toEqual({ status: 0, stdout: 'entry ran with a b\n', stderr: '' })
  })
})

describe('service launchers on Node 24: semi-space sizing and malloc arenas for idle memory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'acdp-launcher-semi-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  /**
   * Copies the launcher beside an entry that prints the V8 flags, arguments and malloc arena cap the service
   * process runs with.
   */
  function install(l: (typeof LAUNCHERS)[number]): string {
    const pkg = join(dir, l.name)
    mkdirSync(join(pkg, 'bin'), { recursive: true })
    writeFileSync(join(pkg, 'package.json'), '{ "type": "module" }')
    copyFileSync(join(ROOT, l.file), join(pkg, 'bin', `${l.name}.js`))
    linkServiceKit(pkg)
    mkdirSync(join(pkg, l.entry, '..'), { recursive: true })
    writeFileSync(
      join(pkg, l.entry),
      'console.log(JSON.stringify({ execArgv: process.execArgv, args: process.argv.slice(2), ' +
        'arenas: process.env.MALLOC_ARENA_MAX ?? null }))\n',
    )
    return join(pkg, 'bin', `${l.name}.js`)
  }

  function launch(bin: string, env: Record<string, string | undefined>, flags: string[] = []) {
    const result = spawnSync(process.execPath, [...flags, bin, '--config', 'a b.toml'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 20_000,
      env: { ...process.env, NODE_OPTIONS: '', ACDP_SEMI_SPACE_MB: undefined, MALLOC_ARENA_MAX: undefined, ...env },
    })
    return { status: result.status, stderr: result.stderr, out: result.status === 0 ? JSON.parse(result.stdout) : null }
  }

  const services = LAUNCHERS.filter((l) => l.name !== 'acdp')

  it.each(services)('$name runs the service with a 2 MiB semi-space and 2 malloc arenas, arguments unchanged', (l) => {
    const result = launch(install(l), {})
    expect(result).toEqual({
      status: 0,
      stderr: '',
      out: { execArgv: ['--max-semi-space-size=2'], args: ['--config', 'a b.toml'], arenas: '2' },
    })
  })

  it.each(services)('$name keeps a MALLOC_ARENA_MAX the operator set, and caps arenas whatever the semi-space', (l) => {
    const bin = install(l)
    expect(launch(bin, { MALLOC_ARENA_MAX: '8' }).out).toMatchObject({
      execArgv: ['--max-semi-space-size=2'],
      arenas: '8',
    })
    expect(launch(bin, { ACDP_SEMI_SPACE_MB: 'default' }).out).toMatchObject({ execArgv: [], arenas: '2' })
    expect(launch(bin, {}, ['--max-semi-space-size=8']).out).toMatchObject({
      execArgv: ['--max-semi-space-size=8'],
      arenas: '2',
    })
    // Nothing to change: no re-execution, the process runs as started.
    expect(launch(bin, { MALLOC_ARENA_MAX: '4', ACDP_SEMI_SPACE_MB: 'default' }).out).toMatchObject({
      execArgv: [],
      arenas: '4',
    })
  })

  it.each(services)('$name keeps Node options it was started with and honours ACDP_SEMI_SPACE_MB', (l) => {
    const bin = install(l)
    expect(launch(bin, {}, ['--stack-size=900']).out.execArgv).toEqual(['--stack-size=900', '--max-semi-space-size=2'])
    expect(launch(bin, { ACDP_SEMI_SPACE_MB: '4' }).out.execArgv).toEqual(['--max-semi-space-size=4'])
    expect(launch(bin, { ACDP_SEMI_SPACE_MB: 'default' }).out.execArgv).toEqual([])
  })

  it.each(services)('$name leaves a semi-space the operator chose alone', (l) => {
    const bin = install(l)
    expect(launch(bin, {}, ['--max-semi-space-size=8']).out.execArgv).toEqual(['--max-semi-space-size=8'])
    expect(launch(bin, { NODE_OPTIONS: '--max_semi_space_size=8' }).out.execArgv).toEqual([])
  })

  it.each(services)('$name refuses a malformed ACDP_SEMI_SPACE_MB with one line', (l) => {
    const result = launch(install(l), { ACDP_SEMI_SPACE_MB: '1.5' })
    expect(result.status).toBe(2)
    expect(result.stderr).toBe(`${l.name}: ACDP_SEMI_SPACE_MB must be a whole number of MiB (1-999) or "default"\n`)
  })
})
