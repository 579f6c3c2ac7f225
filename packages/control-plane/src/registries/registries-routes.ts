/**
 * Registries (product spec "Registries and witness"): the observed list, the enrollment list (never a secret
 * nor the read credential, only whether each is set), POST /registries/enroll (admin, upsert), and the webhook secret rotation of an enrollment (admin; both
 * secrets accepted until the previous one expires or is dropped).
 */
import { type Static, Type } from 'typebox'
import {
  enrollRegistry,
  listEnrollments,
  listRegistries,
  MAX_READ_CREDENTIAL_LENGTH,
  MIN_ENROLLMENT_SECRET_LENGTH,
  READ_CREDENTIAL_PATTERN,
} from './registries.js'
import {
  DEFAULT_PREVIOUS_SECRET_SECONDS,
  dropPreviousEnrollmentSecret,
  MAX_PREVIOUS_SECRET_SECONDS,
  rotateEnrollmentSecret,
} from './webhook-secret-rotation.js'
import { EnrollmentListShape, EnrollmentShape, RegistryListShape } from '../response-schemas/registries.js'
import type { RoutePlugin } from '../core/route-context.js'

const EnrollBody = Type.Object(
  {
    authority: Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9.:-]+$' }),
    tenantId: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$' })),
    baseUrl: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 2048 }), Type.Null()])),
    registryDid: Type.Optional(
      Type.Union([Type.String({ pattern: '^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$', maxLength: 2048 }), Type.Null()]),
    ),
    webhookSecret: Type.Optional(
      Type.Union([
        Type.String({ minLength: MIN_ENROLLMENT_SECRET_LENGTH, maxLength: 1024, writeOnly: true }),
        Type.Null(),
      ]),
    ),
    readCredential: Type.Optional(
      Type.Union(
        [
          Type.String({
            minLength: 1,
            maxLength: MAX_READ_CREDENTIAL_LENGTH,
            pattern: READ_CREDENTIAL_PATTERN,
            writeOnly: true,
          }),
          Type.Null(),
        ],
        {
          description:
            'A bearer token the registry accepts for reads (e.g. one it issued by its challenge login): sent as ' +
            '`Authorization: Bearer` on the control plane reads of this registry only (context search, lineage ' +
            'relay, federation proxy). Write-only, sealed at rest, never returned; null clears it. Dropped when ' +
            'the enrollment moves to another tenant.',
        },
      ),
    ),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)

const Authority = Type.Object({
  authority: Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9.:-]+$' }),
})

const RotateBody = Type.Object(
  {
    webhookSecret: Type.String({ minLength: MIN_ENROLLMENT_SECRET_LENGTH, maxLength: 1024, writeOnly: true }),
    previousValidForSeconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_PREVIOUS_SECRET_SECONDS,
        description: `how long the replaced secret stays accepted (default ${DEFAULT_PREVIOUS_SECRET_SECONDS})`,
      }),
    ),
  },
  { additionalProperties: false },
)

export const registryRoutes: RoutePlugin = async (app, { config, deps, enrollments }) => {
  app.get(
    '/registries',
    {
      schema: {
        summary: 'Registries seen in ingested events, with counts',
        tags: ['registries'],
        response: { 200: RegistryListShape },
      },
    },
    async (request) => listRegistries(deps, request.tenantId),
  )

  app.get(
    '/registries/enrollments',
    {
      schema: {
        summary: "The tenant's registry enrollments (webhook secrets and read credentials never returned)",
        tags: ['registries'],
        response: { 200: EnrollmentListShape },
      },
    },
    async (request) => listEnrollments(deps, request.tenantId),
  )

  app.post(
    '/registries/enroll',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'Enroll or update a registry (admin)',
        tags: ['registries'],
        body: EnrollBody,
        response: { 200: EnrollmentShape },
      },
    },
    async (request) =>
      enrollRegistry({ config, deps, enrollments }, request.tenantId, request.body as Static<typeof EnrollBody>),
  )
  app.post(
    '/registries/:authority/webhook-secret/rotate',
    {
      config: { auth: 'admin' },
      schema: {
        tags: ['registries'],
        summary: 'Rotate the enrollment webhook secret; the replaced one stays accepted for a while',
        params: Authority,
        body: RotateBody,
        response: { 200: EnrollmentShape },
      },
    },
    async (request) =>
      rotateEnrollmentSecret(
        { config, deps, enrollments },
        request.tenantId,
        (request.params as Static<typeof Authority>).authority,
        request.body as Static<typeof RotateBody>,
      ),
  )

  app.delete(
    '/registries/:authority/webhook-secret/previous',
    {
      config: { auth: 'admin' },
      schema: {
        tags: ['registries'],
        summary: 'Stop accepting the previous webhook secret of a rotation now',
        params: Authority,
        response: { 200: EnrollmentShape },
      },
    },
    async (request) =>
      dropPreviousEnrollmentSecret(
        { deps, enrollments },
        request.tenantId,
        (request.params as Static<typeof Authority>).authority,
      ),
  )
}
