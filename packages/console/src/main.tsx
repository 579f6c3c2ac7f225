// Entry: the Buffer global first (see buffer-global.ts), then the app.
import './buffer-global.js'
import './styles.css'
import { render } from 'preact'
import { App } from './app.js'

render(<App />, document.getElementById('app') as HTMLElement)
