#!/usr/bin/env node
// Committed launcher: npm links a workspace bin at install time only if the file exists, and dist/ is built
// later (`npm run build`, or `npm start`). This file always exists and loads the built entry point.
//
// It checks the Node.js version first, and the whole file is syntax every Node.js parses (ES5: no import
// statement, no import.meta, no top-level await, whether loaded as a CommonJS script or an ES module), so an old
// Node prints one line saying what to run instead of failing on syntax or on a module it lacks.
var NAME = 'acdp'
var REQUIRED_MAJOR = 24
var ENTRY = '../dist/bin/acdp.js'

var found = process.versions && process.versions.node ? process.versions.node : '0'
if (!(Number(found.split('.')[0]) >= REQUIRED_MAJOR)) {
  var args = process.argv.slice(2).map(function (arg) {
    return /^[\w@%+=:,./-]+$/.test(arg) ? arg : "'" + arg.replace(/'/g, "'\\''") + "'"
  })
  process.stderr.write(
    NAME +
      ': needs Node.js ' +
      REQUIRED_MAJOR +
      ' or newer, found ' +
      process.version +
      ' (' +
      process.execPath +
      '); run `' +
      ['npx', NAME].concat(args).join(' ') +
      '` in the repository (npx uses its pinned Node.js ' +
      REQUIRED_MAJOR +
      ') or install Node.js ' +
      REQUIRED_MAJOR +
      '\n'
  )
  process.exit(4)
}

// Node.js 24 from here. The entry is found from this file's real path (npm's bin link is a symlink) and loaded
// through a function, since an import expression would already be syntax an old Node rejects.
var fs = process.getBuiltinModule('node:fs')
var path = process.getBuiltinModule('node:path')
var url = process.getBuiltinModule('node:url')
var entry = path.resolve(path.dirname(fs.realpathSync(process.argv[1])), ENTRY)
if (!fs.existsSync(entry)) {
  process.stderr.write(
    NAME + ': the build output is missing; run `npm run build` (or `npm start`) in the repository first\n'
  )
  process.exit(2)
}
new Function('specifier', 'return import(specifier)')(url.pathToFileURL(entry).href)
