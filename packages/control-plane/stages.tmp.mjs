import { readFileSync } from 'node:fs'
import { mkdtempSync } from 'node:fs'
import v8 from 'node:v8'
const CP = '/work/cp-rss/packages/control-plane/dist/'
const rss = () => Number(readFileSync('/proc/self/status', 'utf8').match(/VmRSS:\s+(\d+)/)[1]) / 1024
const line = (label) => { gc(); gc(); const h = process.memoryUsage(); console.log(label.padEnd(28), 'rss', rss().toFixed(1), 'heapUsed', (h.heapUsed/1048576).toFixed(1), 'old', (v8.getHeapSpaceStatistics().find(s=>s.space_name==='old_space').space_used_size/1048576).toFixed(1), 'code+bc', (Object.values(v8.getHeapCodeStatistics()).slice(0,2).reduce((a,b)=>a+b,0)/1048576).toFixed(1)) }
line('empty')
for (const m of (process.env.PRE || '').split(',').filter(Boolean)) { await import(m); line('import ' + m) }
const { loadConfig } = await import(CP + 'config.js'); line('config')
const { createDeps } = await import(CP + 'deps.js'); line('deps.js')
const { buildApp } = await import(CP + 'app.js'); line('app.js')
const env = { ...process.env, DATA_DIR: mkdtempSync('/tmp/cprss/d-'), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' }
const config = loadConfig(env)
const deps = await createDeps(config, { readEnvironment: () => env }); line('createDeps')
const app = await buildApp(config, deps); line('buildApp')
await app.listen({ host: '127.0.0.1', port: 0 }); line('listen')
const port = app.server.address().port
await fetch(`http://127.0.0.1:${port}/healthz`); line('healthz')
await new Promise(r => setTimeout(r, 2000)); line('settled')
await app.close(); process.exit(0)
