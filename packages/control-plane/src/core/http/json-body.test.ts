/** The control plane's JSON body parser against the shared body-contract cases. */
import { describeBodyContracts } from '../../../../../test/support/body-contract-cases.js'
import { installErrorHandlers } from '../errors.js'
import { installJsonBodyParser } from './json-body.js'

describeBodyContracts('control-plane JSON body parser', {
  install(app) {
    installErrorHandlers(app)
    installJsonBodyParser(app, { maxDepth: 8 })
  },
  rawOf: (request) => request.rawBody?.toString('utf8') ?? null,
  emptyRequired: { statusCode: 400, errorCode: 'INVALID_PAYLOAD', message: 'the body is empty' },
  refusedBody: (method, url) => ({
    statusCode: 400,
    errorCode: 'INVALID_PAYLOAD',
    message: `${method} ${url} takes no request body`,
  }),
})
