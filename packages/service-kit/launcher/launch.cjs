// The launcher behind every committed bin (acdp, acdp-registry, acdp-control-plane). npm links a workspace bin at
// install time only if the file exists, and dist/ is built later (`npm run build`, or `npm start`), so each bin is
// a committed three-line file that loads this one, which then loads the built entry point.
//
// It checks the Node.js version first, and the whole file is syntax every Node.js parses (ES5 in a CommonJS
// script: no import statement, no import.meta, no top-level await), so an old Node prints one line saying what to
// run instead of failing on syntax or on a module it lacks.
'use strict'

var REQUIRED_MAJOR = 24

/**
 * @param {{ name: string, bin: string, entry: string, tuneMemory: boolean }} options
 *   name: the command's name, as the user typed it; bin: the bin file as started (process.argv[1]); entry: the
 *   built entry point, relative to the bin file's real directory; tuneMemory: whether this is a long-running
 *   service whose process gets the idle-memory settings below.
 */
function launch(options) {
  refuseOldNode(options.name)
  if (options.tuneMemory) reexecForIdleMemory(options.name)
  loadEntry(options)
}

function refuseOldNode(name) {
  var found = process.versions && process.versions.node ? process.versions.node : '0'
  if (Number(found.split('.')[0]) >= REQUIRED_MAJOR) return
  var args = process.argv.slice(2).map(function (arg) {
    return /^[\w@%+=:,./-]+$/.test(arg) ? arg : "'" + arg.replace(/'/g, "'\\''") + "'"
  })
  process.stderr.write(
    name +
      ': needs Node.js ' +
      REQUIRED_MAJOR +
      ' or newer, found ' +
      process.version +
      ' (' +
      process.execPath +
      '); run `' +
      ['npx', name].concat(args).join(' ') +
      '` in the repository (npx uses its pinned Node.js ' +
      REQUIRED_MAJOR +
      ') or install Node.js ' +
      REQUIRED_MAJOR +
      '\n'
  )
  process.exit(4)
}

// Idle memory (docs/performance/journal.md "Idle memory (RSS)"): startup allocates a lot that all survives, so V8
// grows its young generation to the 16 MiB semi-space maximum and keeps it committed (32 MB resident) while the
// service idles. The service process therefore runs with a 2 MiB semi-space, a V8 heap flag that only takes effect
// when given at start: the launcher re-executes Node.js with it in the same process (same PID, so systemd,
// containers and signal handling see no difference). The flag is left out when already set (on the command line
// or in NODE_OPTIONS, so operators keep the last word) or when ACDP_SEMI_SPACE_MB=default; ACDP_SEMI_SPACE_MB=<n>
// picks another size. The same re-execution caps glibc's malloc arenas at 2 (MALLOC_ARENA_MAX, read by glibc only
// when a process starts; ≈ 2.5 MB less at idle) unless MALLOC_ARENA_MAX is already set. Nothing is re-executed
// where process.execve does not exist (Windows) or is refused, or when there is nothing to change.
var SEMI_SPACE_FLAG = /(^|\s)--max[-_]semi[-_]space[-_]size\b/

function reexecForIdleMemory(name) {
  var semiSpace = process.env.ACDP_SEMI_SPACE_MB || '2'
  if (semiSpace !== 'default' && !/^[1-9][0-9]{0,2}$/.test(semiSpace)) {
    process.stderr.write(name + ': ACDP_SEMI_SPACE_MB must be a whole number of MiB (1-999) or "default"\n')
    process.exit(2)
  }
  var addSemiSpace =
    semiSpace !== 'default' &&
    !SEMI_SPACE_FLAG.test(process.execArgv.join(' ')) &&
    !SEMI_SPACE_FLAG.test(process.env.NODE_OPTIONS || '')
  var capArenas = process.env.MALLOC_ARENA_MAX === undefined
  if (typeof process.execve !== 'function' || !(addSemiSpace || capArenas)) return
  var env = Object.assign({}, process.env)
  if (capArenas) env.MALLOC_ARENA_MAX = '2'
  try {
    process.execve(
      process.execPath,
      [process.execPath].concat(
        process.execArgv,
        addSemiSpace ? ['--max-semi-space-size=' + semiSpace] : [],
        process.argv.slice(1)
      ),
      env
    )
  } catch (error) {
    // refused before the call (e.g. the permission model without --allow-child-process): run as started
  }
}

// Node.js 24 from here. The entry is found from the bin's real path (npm's bin link is a symlink) and loaded
// through a function, since an import expression would already be syntax an old Node rejects.
function loadEntry(options) {
  var fs = process.getBuiltinModule('node:fs')
  var path = process.getBuiltinModule('node:path')
  var url = process.getBuiltinModule('node:url')
  var entry = path.resolve(path.dirname(fs.realpathSync(options.bin)), options.entry)
  if (!fs.existsSync(entry)) {
    process.stderr.write(
      options.name + ': the build output is missing; run `npm run build` (or `npm start`) in the repository first\n'
    )
    process.exit(2)
  }
  return new Function('specifier', 'return import(specifier)')(url.pathToFileURL(entry).href)
}

module.exports = { launch: launch }
