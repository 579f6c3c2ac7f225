/**
 * `acdp registries`: administration of the control plane's registry enrollments: `enroll` (registries-enroll.ts)
 * and the webhook secret rotation (docs/deploy.md "Rotation"): `rotate-secret` makes a new secret current while
 * the replaced one stays accepted, `drop-previous-secret` ends the rotation once every registry instance signs
 * with the new secret. All need an admin key (ACDP_API_KEY). Secrets are read from files, never from the
 * command line (a command line is visible to every user of the machine).
 */
import { type Command, parseCommandArgs } from '../command.js'
import { EXIT, usageError } from '../exit-codes.js'
import {
  dropPreviousEnrollmentSecret,
  type EnrollmentView,
  rotateEnrollmentSecret,
} from '../http/control-plane-client.js'
import { controlPlaneOf, resolveStackTarget } from '../stack-target.js'
import { readSecretFile } from './input-files.js'
import { ENROLL_HELP, enrollCommand } from './registries-enroll.js'
import { checkBaseUrl, JSON_OPTION, parseIntegerFlag, TARGET_HELP, TARGET_OPTIONS } from './shared-options.js'

/** The longest validity the control plane accepts for a previous secret (30 days). */
const MAX_VALID_FOR_SECONDS = 30 * 86_400
/** The control plane's tenant id shape. */
const TENANT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/

export const registriesCommand: Command = {
  name: 'registries',
  summary: 'administer registry enrollments: enroll a registry, rotate a webhook secret without refusing deliveries',
  help: `Usage: acdp registries enroll <authority> --secret-file FILE [--base-url URL] [--registry-did DID] [--witness on|off]
                         [--public-url URL] [--tenant ID] [--json]
       acdp registries rotate-secret <authority> --secret-file FILE [--valid-for SECONDS] [--tenant ID] [--json]
       acdp registries drop-previous-secret <authority> [--tenant ID] [--json]

${ENROLL_HELP}
rotate-secret         the secret in FILE (one line; surrounding whitespace ignored) becomes the enrollment's
                      webhook secret; the one it replaces stays accepted for --valid-for seconds
                      (1-${MAX_VALID_FOR_SECONDS}; default: the control plane's, one day), so the registry can move
                      to the new secret while it keeps delivering
drop-previous-secret  stop accepting the replaced secret now (after every registry instance signs with the new one)

All three need an admin key of the control plane in ACDP_API_KEY (an AUTH_ADMIN_API_KEYS entry).

Options:
  --secret-file FILE    file holding the secret (one line, at least 16 characters)
  --base-url URL        enroll: the registry's public base URL (default https://<authority>)
  --registry-did DID    enroll: the registry's DID (default did:web:<authority>)
  --witness on|off      enroll: whether the control plane's log witness polls the registry (default on)
  --public-url URL      enroll: the control plane's public URL in the printed configuration (default --control-plane)
  --valid-for SECONDS   how long the replaced secret stays accepted
  --tenant ID           the tenant the registry is enrolled in (sent as X-Tenant-Id; default: the key's tenant)
  --json                print the enrollment the control plane returns
${TARGET_HELP}`,
  async run(args, io) {
    const [sub, ...rest] = args
    if (sub !== 'enroll' && sub !== 'rotate-secret' && sub !== 'drop-previous-secret') {
      throw usageError('expected "acdp registries enroll|rotate-secret|drop-previous-secret <authority>" (see --help)')
    }
    const { values, positionals } = parseCommandArgs(
      'registries',
      rest,
      {
        ...TARGET_OPTIONS,
        ...JSON_OPTION,
        'secret-file': { type: 'string' },
        'valid-for': { type: 'string' },
        tenant: { type: 'string' },
        'base-url': { type: 'string' },
        'registry-did': { type: 'string' },
        witness: { type: 'string' },
        'public-url': { type: 'string' },
      },
      { min: 1, max: 1, names: '<authority>' },
    )
    const authority = positionals[0] as string
    if (values.tenant !== undefined && !TENANT_ID.test(values.tenant)) {
      throw usageError('--tenant must be 1-128 letters, digits, ".", "_" or "-", starting with a letter or digit')
    }
    const target = {
      ...controlPlaneOf(
        resolveStackTarget(io, {
          controlPlane: checkBaseUrl('control-plane', values['control-plane']),
          dataDir: values['data-dir'],
        }),
      ),
      ...(values.tenant === undefined ? {} : { tenantId: values.tenant }),
    }
    const enrollOnly = (['base-url', 'registry-did', 'witness', 'public-url'] as const).filter(
      (flag) => values[flag] !== undefined,
    )
    if (sub === 'enroll') {
      if (values['valid-for'] !== undefined) throw usageError('enroll takes no --valid-for')
      await enrollCommand(io, target, authority, values)
      return EXIT.ok
    }
    if (enrollOnly.length > 0) throw usageError(`--${enrollOnly[0]} is only for enroll`)
    let enrollment: EnrollmentView
    if (sub === 'rotate-secret') {
      if (values['secret-file'] === undefined) throw usageError('rotate-secret needs --secret-file FILE')
      const validFor = parseIntegerFlag('valid-for', values['valid-for'], 1, MAX_VALID_FOR_SECONDS)
      enrollment = await rotateEnrollmentSecret(io, target, authority, {
        webhookSecret: readSecretFile(io, values['secret-file']),
        ...(validFor === undefined ? {} : { previousValidForSeconds: validFor }),
      })
    } else {
      if (values['secret-file'] !== undefined || values['valid-for'] !== undefined) {
        throw usageError('drop-previous-secret takes no --secret-file or --valid-for')
      }
      enrollment = await dropPreviousEnrollmentSecret(io, target, authority)
    }
    if (values.json) io.stdout(`${JSON.stringify(enrollment, null, 2)}\n`)
    else {
      const until = enrollment.previousWebhookSecretExpiresAt
      io.stdout(
        until === null
          ? `${enrollment.authority}: only the current webhook secret is accepted\n`
          : `${enrollment.authority}: new webhook secret in force; the previous one is accepted until ${until}\n`,
      )
    }
    return EXIT.ok
  },
}
