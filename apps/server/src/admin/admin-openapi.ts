// The admin API's part of the OpenAPI document (decisions §9), generated from the same zod
// schemas the routes validate with. The core writes the chat API's document; the server adds
// these paths to it, each with its own server URL (`/admin/v1`).
import * as z from 'zod';
import { adminErrorCodes, serverErrorCodes } from './admin-errors.js';
import {
  apiKeyObjectSchema,
  auditEntrySchema,
  auditQuerySchema,
  createdApiKeySchema,
  createKeyRequestSchema,
  createOrganisationRequestSchema,
  listKeysQuerySchema,
  listOf,
  maxAuditEntries,
  organisationObjectSchema,
  rotatedApiKeySchema,
  rotateKeyRequestSchema,
  updateKeyRequestSchema,
  updateOrganisationRequestSchema,
  usageListSchema,
  usageQuerySchema,
} from './admin-schemas.js';

type JsonObject = Record<string, unknown>;

/** Where the admin API is mounted. */
export const adminBasePath = '/admin/v1';

function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonObject;
  return rest;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const jsonContent = (schema: JsonObject) => ({ 'application/json': { schema } });
/** Unlike the chat API's, never the client's: its audit entry must name an id a client cannot choose. */
const requestIdHeader = {
  'x-request-id': {
    required: true,
    schema: { type: 'string', minLength: 1 },
    description: "Our id of this admin request, always generated here (the audit log's `request_id`); an incoming `x-request-id` is not echoed but kept as `client_request_id`.",
  },
};

/** The codes each status may carry on the admin API, the core's and its own. */
const adminStatusCodes: Record<number, string[]> = {
  400: ['invalid_json', 'missing_required_parameter', 'invalid_type', 'invalid_value'],
  401: Object.keys(adminErrorCodes).filter((code) => adminErrorCodes[code as keyof typeof adminErrorCodes].status === 401),
  404: ['unknown_url', 'organisation_not_found', 'key_not_found'],
  405: ['method_not_allowed'],
  409: Object.keys(adminErrorCodes).filter((code) => adminErrorCodes[code as keyof typeof adminErrorCodes].status === 409),
  413: ['request_too_large'],
  415: ['unsupported_media_type'],
  429: ['too_many_failed_admin_tokens'],
  503: ['store_unavailable'],
};

function typeOf(code: string): string {
  return (serverErrorCodes as Record<string, { type: string }>)[code]!.type;
}

function errorResponses(statuses: number[]): JsonObject {
  return Object.fromEntries(
    statuses.map((status) => {
      const codes = adminStatusCodes[status]!;
      const types = [...new Set(codes.map(typeOf))];
      const description = `The error envelope. ${types.map((type) => `\`${type}\`: ${codes.filter((code) => typeOf(code) === type).map((code) => `\`${code}\``).join(', ')}`).join('; ')}.`;
      const headers = status === 503 || status === 429 ? { ...requestIdHeader, 'retry-after': { schema: { type: 'integer', minimum: 1 }, description: 'Seconds to wait before retrying.' } } : requestIdHeader;
      return [String(status), { description, headers, content: jsonContent(ref('ErrorEnvelope')) }];
    }),
  );
}

/**
 * Query parameters a route reads from digits, documented as the integers they are (a query
 * string writes an integer as digits): the text schema the route parses cannot carry bounds.
 */
const integerQueryParameters: Record<string, JsonObject> = {
  limit: { type: 'integer', minimum: 1, maximum: maxAuditEntries },
};

function queryParameters(schema: z.ZodObject): JsonObject[] {
  const json = toSchema(schema, 'input') as { properties?: Record<string, JsonObject> };
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    return { name, in: 'query', required: false, schema: integerQueryParameters[name] ?? rest, ...(description !== undefined ? { description } : {}) };
  });
}

const pathParameter = (name: string, description: string) => ({ name, in: 'path', required: true, schema: { type: 'string' }, description });
const organisationName = pathParameter('name', "The organisation's name.");
const keyId = pathParameter('id', 'The key id (`key_…`), as `GET /keys` lists it.');

interface OperationSpec {
  operationId: string;
  summary: string;
  description: string;
  parameters?: JsonObject[];
  body?: { schema: string; required: boolean };
  success: { status: number; description: string; schema: string };
  errors: number[];
}

function operation(spec: OperationSpec): JsonObject {
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tags: ['admin'],
    security: [{ adminAuth: [] }],
    ...(spec.parameters !== undefined ? { parameters: spec.parameters } : {}),
    ...(spec.body !== undefined ? { requestBody: { required: spec.body.required, content: jsonContent(ref(spec.body.schema)) } } : {}),
    responses: {
      [String(spec.success.status)]: { description: spec.success.description, headers: requestIdHeader, content: jsonContent(ref(spec.success.schema)) },
      // 404: also every path while the admin API is off.
      // 429: every path, for an address that presented too many wrong admin tokens.
      ...errorResponses([...new Set([400, 401, 404, 405, 429, 503, ...spec.errors])].sort()),
    },
  };
}

const servers = [{ url: adminBasePath, description: 'The admin API: off (every path 404) unless an admin token is configured.' }];

/** The admin paths, each with `/admin/v1` as its server. */
function adminPaths(): JsonObject {
  const paths: Record<string, JsonObject> = {
    '/organisations': {
      get: operation({
        operationId: 'adminListOrganisations',
        summary: 'List organisations',
        description: 'Every organisation with its plan, the limits that apply and the overrides of its plan.',
        success: { status: 200, description: 'The organisations, by name.', schema: 'AdminOrganisationList' },
        errors: [],
      }),
      post: operation({
        operationId: 'adminCreateOrganisation',
        summary: 'Create an organisation',
        description: 'A new organisation on a plan (`free` by default), optionally with limits of its own.',
        body: { schema: 'AdminCreateOrganisationRequest', required: true },
        success: { status: 201, description: 'The organisation.', schema: 'AdminOrganisation' },
        errors: [409, 413, 415],
      }),
    },
    '/organisations/{name}': {
      get: operation({
        operationId: 'adminGetOrganisation',
        summary: 'Retrieve an organisation',
        description: 'One organisation.',
        parameters: [organisationName],
        success: { status: 200, description: 'The organisation.', schema: 'AdminOrganisation' },
        errors: [404],
      }),
      patch: operation({
        operationId: 'adminUpdateOrganisation',
        summary: 'Change plan and limits',
        description: 'Changes the plan and the limits; running servers apply it at the next request. Test keys get the same limits, counted apart.',
        parameters: [organisationName],
        body: { schema: 'AdminUpdateOrganisationRequest', required: true },
        success: { status: 200, description: 'The organisation after the change.', schema: 'AdminOrganisation' },
        errors: [404, 413, 415],
      }),
    },
    '/keys': {
      get: operation({
        operationId: 'adminListKeys',
        summary: 'List keys',
        description: 'Keys by their id and display form (prefix and last 4): a secret is never shown again.',
        parameters: queryParameters(listKeysQuerySchema),
        success: { status: 200, description: 'The keys, oldest first.', schema: 'AdminApiKeyList' },
        errors: [404],
      }),
      post: operation({
        operationId: 'adminCreateKey',
        summary: 'Create a key',
        description: 'A new key of an organisation. The response carries its `secret`: the only time it is shown (the store keeps its SHA-256).',
        body: { schema: 'AdminCreateKeyRequest', required: true },
        success: { status: 201, description: 'The key, with its secret.', schema: 'AdminCreatedApiKey' },
        errors: [404, 413, 415],
      }),
    },
    '/keys/{id}': {
      get: operation({
        operationId: 'adminGetKey',
        summary: 'Retrieve a key',
        description: 'One key, without its secret.',
        parameters: [keyId],
        success: { status: 200, description: 'The key.', schema: 'AdminApiKey' },
        errors: [404],
      }),
      patch: operation({
        operationId: 'adminUpdateKey',
        summary: 'Change expiry, models and limits',
        description:
          "Changes a key's expiry, the models it may use and its own limits; running servers apply it at once. A revoked key is 409 `key_revoked`; an expired key (its expiry passed, or rotated out) is 409 `key_expired`: it is never revived, clearing or postponing its expiry included. Create a new key instead. A key rotated out but still in its overlap may have the overlap's end brought forward; clearing or postponing it is 409 `key_rotated` (the message names the key that replaced it).",
        parameters: [keyId],
        body: { schema: 'AdminUpdateKeyRequest', required: true },
        success: { status: 200, description: 'The key after the change.', schema: 'AdminApiKey' },
        errors: [404, 409, 413, 415],
      }),
    },
    '/keys/{id}/revoke': {
      post: operation({
        operationId: 'adminRevokeKey',
        summary: 'Revoke a key',
        description: 'Requests with the key get 401 `invalid_api_key` from now on, on every instance. Revoking a revoked key changes nothing.',
        parameters: [keyId],
        success: { status: 200, description: 'The revoked key.', schema: 'AdminApiKey' },
        errors: [404],
      }),
    },
    '/keys/{id}/rotate': {
      post: operation({
        operationId: 'adminRotateKey',
        summary: 'Rotate a key',
        description:
          'A new key with the same settings, its `secret` shown once; the old key keeps working until the overlap ends (`overlap_seconds`, an hour by default), then gets 401 `invalid_api_key` saying it expired.',
        parameters: [keyId],
        body: { schema: 'AdminRotateKeyRequest', required: false },
        success: { status: 201, description: 'The new key with its secret, and the old one with its new expiry.', schema: 'AdminRotatedApiKey' },
        errors: [404, 409, 413, 415],
      }),
    },
    '/usage': {
      get: operation({
        operationId: 'adminGetUsage',
        summary: 'Usage per organisation, key, model and day',
        description: 'Requests and tokens per UTC day, organisation, key and model, for 30 days up to today unless `since` and `until` say otherwise (`since` not after `until`, at most 366 days, else 400 naming `since`).',
        parameters: queryParameters(usageQuerySchema),
        success: { status: 200, description: 'One row per day, organisation, key and model with traffic.', schema: 'AdminUsageList' },
        errors: [404],
      }),
    },
    '/audit-log': {
      get: operation({
        operationId: 'adminListAuditLog',
        summary: 'Read the audit log',
        description: 'Every change made through the admin API or the CLI: who (the admin token id, or the CLI user), what and when. Never a secret.',
        parameters: queryParameters(auditQuerySchema),
        success: { status: 200, description: 'Entries, newest first.', schema: 'AdminAuditLog' },
        errors: [],
      }),
    },
  };
  return Object.fromEntries(Object.entries(paths).map(([path, item]) => [path, { servers, ...item }]));
}

/** `allowed_models` lists model ids the server answers: each entry one of `models` (the admin API refuses others). */
function withModelIds(schema: JsonObject, models: readonly string[]): JsonObject {
  const properties = schema.properties as Record<string, JsonObject> | undefined;
  const allowed = properties?.allowed_models;
  if (allowed === undefined) return schema;
  const branches = (allowed.anyOf as JsonObject[] | undefined) ?? [allowed];
  const tightened = branches.map((branch) => (branch.type === 'array' ? { ...branch, items: { ...(branch.items as JsonObject), enum: [...models] } } : branch));
  return { ...schema, properties: { ...properties, allowed_models: allowed.anyOf !== undefined ? { ...allowed, anyOf: tightened } : tightened[0] } };
}

function adminSchemas(models: readonly string[]): JsonObject {
  return {
    AdminOrganisation: toSchema(organisationObjectSchema, 'output'),
    AdminOrganisationList: toSchema(listOf(organisationObjectSchema), 'output'),
    AdminCreateOrganisationRequest: toSchema(createOrganisationRequestSchema, 'input'),
    AdminUpdateOrganisationRequest: toSchema(updateOrganisationRequestSchema, 'input'),
    AdminApiKey: toSchema(apiKeyObjectSchema, 'output'),
    AdminApiKeyList: toSchema(listOf(apiKeyObjectSchema), 'output'),
    AdminCreatedApiKey: toSchema(createdApiKeySchema, 'output'),
    AdminRotatedApiKey: toSchema(rotatedApiKeySchema, 'output'),
    AdminCreateKeyRequest: withModelIds(toSchema(createKeyRequestSchema, 'input'), models),
    AdminUpdateKeyRequest: withModelIds(toSchema(updateKeyRequestSchema, 'input'), models),
    AdminRotateKeyRequest: toSchema(rotateKeyRequestSchema, 'input'),
    AdminUsageList: toSchema(usageListSchema, 'output'),
    AdminAuditLog: toSchema(listOf(auditEntrySchema), 'output'),
  };
}

/**
 * The chat API's document with the admin API added: its paths (each with `/admin/v1` as its
 * server), its schemas and its `adminAuth` scheme. The chat paths are left as they are.
 * `models`: the ids the server answers, which `allowed_models` may name.
 *
 * @example
 * createChatHandler({ ..., openApiDocument: (context) => withAdminApi(createOpenApiDocument(context), context.models) });
 */
export function withAdminApi(document: JsonObject, models: readonly string[]): JsonObject {
  const components = (document.components ?? {}) as JsonObject;
  return {
    ...document,
    paths: { ...(document.paths as JsonObject), ...adminPaths() },
    components: {
      ...components,
      securitySchemes: {
        ...(components.securitySchemes as JsonObject),
        adminAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An admin token (the admin API only): the config\'s `adminToken` or `adminTokens`, or `QUANTUM_CHAT_ADMIN_TOKEN`. Without one configured the admin API is off and answers 404. A client address that presents 10 wrong tokens within a minute (`adminTokenFailuresPerMinute` in the config) gets 429 `too_many_failed_admin_tokens` (with `retry-after`) for every admin request until that minute ends.',
        },
      },
      schemas: { ...(components.schemas as JsonObject), ...adminSchemas(models) },
    },
  };
}
