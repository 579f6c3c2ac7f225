/** The registry's JSON body parser against the shared body-contract cases. */
import { describeBodyContracts } from '../../../../../test/support/body-contract-cases.js'
import { installErrorHandling } from '../errors.js'
import { installJsonBodyParser } from './json-body.js'

describeBodyContracts('registry JSON body parser', {
  install(app) {
    installJsonBodyParser(app, 1024)
    installErrorHandling(app)
  },
  rawOf: (request) => request.acdpRawBody,
  emptyRequired: { error: { code: 'schema_violation', message: 'The request is not valid ACDP JSON.' } },
  refusedBody: (method, url) => ({
    error: { code: 'schema_violation', message: `${method} ${url} takes no request body.` },
  }),
})
