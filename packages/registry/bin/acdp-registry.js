#!/usr/bin/env node
// Committed bin: loads the shared launcher (@acdp/service-kit/launcher), which refuses a Node.js older than 24 in
// one line, then runs the built entry point. ES5 script syntax, so that every Node.js parses it.
new Function('specifier', 'return import(specifier)')('@acdp/service-kit/launcher').then(function (kit) {
  kit.default.launch({ name: 'acdp-registry', bin: process.argv[1], entry: '../dist/main.js', tuneMemory: true })
})
