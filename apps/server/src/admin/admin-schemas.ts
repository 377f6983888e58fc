// The admin API's wire shapes (decisions §9), in the core's style: zod schemas that the routes
// validate with, the service returns, and the OpenAPI document is generated from. Wire names
// are snake_case, times are Unix seconds, as in the chat API.
import * as z from 'zod';

/** The limits of decisions §6, as the wire names them. */
export const wireLimitFields = { requests_per_minute: 'requestsPerMinute', tokens_per_minute: 'tokensPerMinute', tokens_per_day: 'tokensPerDay' } as const;
export type WireLimitField = keyof typeof wireLimitFields;

const limitValue = z.int().min(0).describe('A whole number.');

/** Unix seconds, or an ISO 8601 time with its offset (`2027-01-31T00:00:00Z`). */
const timeInputSchema = z
  // At most the last second of the year 9999, as ISO 8601 can write it.
  .union([z.int().min(0).max(253_402_300_799), z.iso.datetime({ offset: true })])
  .describe('Unix seconds, or an ISO 8601 time with its offset such as `2027-01-31T00:00:00Z`.');

/** An organisation's name as the admin API creates it: what URLs, logs and limit buckets can carry as is. */
const organisationNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const modelIds = z
  .array(z.string().min(1).max(128))
  .min(1)
  .max(64)
  .describe('Model ids; any other model is refused with 403 `model_not_allowed`.');

/** The three limits, as every object shows them; `null`: no limit. */
function limitsObject<T extends z.ZodType>(value: T) {
  return z.strictObject({ requests_per_minute: value.optional(), tokens_per_minute: value.optional(), tokens_per_day: value.optional() });
}

export const createOrganisationRequestSchema = z.strictObject({
  name: z.string().regex(organisationNamePattern, 'expected 1 to 64 letters, digits, dots, dashes and underscores, starting with a letter or digit'),
  plan: z.enum(['free', 'elite']).optional().describe('`free` (the default) or `elite`.'),
  limits: limitsObject(limitValue.nullable())
    .optional()
    .describe("Overrides of the plan's limits: a number replaces it, `null` lifts it."),
});

export const updateOrganisationRequestSchema = z.strictObject({
  plan: z.enum(['free', 'elite']).optional(),
  limits: limitsObject(z.union([limitValue, z.null(), z.literal('default')]))
    .optional()
    .describe("A number replaces the plan's limit, `null` lifts it, `\"default\"` goes back to the plan's."),
});

export const createKeyRequestSchema = z.strictObject({
  organisation: z.string().min(1).max(256),
  kind: z.enum(['live', 'test']).optional().describe('`live` (the default): the configured engines; `test`: the reference engine, with limits of their own.'),
  require_signature: z.boolean().optional().describe('The key only works with a good `X-Service-Signature`.'),
  expires_at: timeInputSchema.nullable().optional().describe('When the key stops working (401 `invalid_api_key`, saying it expired), in the future; never by default.'),
  allowed_models: modelIds.nullable().optional(),
  limits: limitsObject(limitValue)
    .optional()
    .describe("The key's own limits, counted apart and applied within its organisation's."),
});

export const updateKeyRequestSchema = z.strictObject({
  expires_at: timeInputSchema.nullable().optional().describe('A time in the future; `null`: never.'),
  allowed_models: modelIds.nullable().optional().describe('`null`: every model its plan allows.'),
  limits: limitsObject(limitValue.nullable())
    .optional()
    .describe("A number sets the key's own limit, `null` drops it (the organisation's alone applies)."),
});

/** The longest overlap a rotation may give: 30 days. */
const maxOverlapSeconds = 30 * 86_400;
export const defaultOverlapSeconds = 3600;

export const rotateKeyRequestSchema = z.strictObject({
  overlap_seconds: z
    .int()
    .min(0)
    .max(maxOverlapSeconds)
    .optional()
    .describe(`How long the old key keeps working beside the new one; ${defaultOverlapSeconds} (an hour) by default, 0 stops it at once.`),
  expires_at: timeInputSchema.nullable().optional().describe("The new key's expiry, in the future; the old key's by default."),
});

const day = z.iso.date().describe('A UTC day, `YYYY-MM-DD`.');

export const listKeysQuerySchema = z.strictObject({
  organisation: z.string().min(1).max(256).optional(),
});

export const usageQuerySchema = z.strictObject({
  organisation: z.string().min(1).max(256).optional(),
  key_id: z.string().min(1).max(256).optional(),
  model: z.string().min(1).max(256).optional(),
  since: day.optional().describe('The first day counted; 29 days before `until` by default.'),
  until: day.optional().describe('The last day counted (included); today by default.'),
});

/** The most audit entries one call returns. */
export const maxAuditEntries = 1000;

/** Query strings carry text: `since` may be Unix seconds written as digits. */
export const auditQuerySchema = z.strictObject({
  since: z
    .union([z.string().regex(/^\d+$/).transform(Number), z.iso.datetime({ offset: true })])
    .optional()
    .describe('Entries at or after this time: Unix seconds, or an ISO 8601 time with its offset.'),
  limit: z.string().regex(/^\d+$/, 'expected a whole number').transform(Number).pipe(z.int().min(1).max(maxAuditEntries)).optional().describe('At most this many entries, newest first; 100 by default.'),
});

/** The limits that apply; `null`: no limit. */
const effectiveLimitsSchema = z.object({
  requests_per_minute: z.int().nullable(),
  tokens_per_minute: z.int().nullable(),
  tokens_per_day: z.int().nullable(),
});

export const organisationObjectSchema = z.object({
  object: z.literal('organisation'),
  name: z.string(),
  plan: z.enum(['free', 'elite']),
  limits: effectiveLimitsSchema.describe("The limits that apply: the plan's, with the overrides on top."),
  limit_overrides: limitsObject(z.int().nullable()).describe("Only the limits that differ from the plan's (`null`: lifted)."),
  created_at: z.int(),
});
export type OrganisationObject = z.infer<typeof organisationObjectSchema>;

export const apiKeyObjectSchema = z.object({
  object: z.literal('api_key'),
  id: z.string(),
  organisation: z.string(),
  kind: z.enum(['live', 'test']),
  display: z.string().describe('The prefix and last 4 characters; the secret itself is never shown again.'),
  status: z.enum(['active', 'expired', 'revoked']),
  require_signature: z.boolean(),
  created_at: z.int(),
  expires_at: z.int().nullable(),
  allowed_models: z.array(z.string()).nullable(),
  limits: limitsObject(z.int().nullable()).describe("The key's own limits (within its organisation's); empty when it has none."),
});
export type ApiKeyObject = z.infer<typeof apiKeyObjectSchema>;

export const createdApiKeySchema = apiKeyObjectSchema.extend({
  secret: z.string().describe('The key itself: shown in this response only. Store it now.'),
});
export type CreatedApiKey = z.infer<typeof createdApiKeySchema>;

export const rotatedApiKeySchema = createdApiKeySchema.extend({
  previous_key: apiKeyObjectSchema.describe('The rotated key, working until its `expires_at` (the end of the overlap).'),
});
export type RotatedApiKey = z.infer<typeof rotatedApiKeySchema>;

const usageRowSchema = z.object({
  object: z.literal('usage.day'),
  day: z.string().describe('The UTC day, `YYYY-MM-DD`.'),
  organisation: z.string(),
  key_id: z.string(),
  key_display: z.string(),
  kind: z.enum(['live', 'test']),
  model: z.string(),
  requests: z.int(),
  prompt_tokens: z.int(),
  cached_prompt_tokens: z.int().describe('Of `prompt_tokens`, those the models read from their prompt caches, as they reported (OpenAI\'s `cached_tokens`); 0 when none did.'),
  completion_tokens: z.int(),
  total_tokens: z.int(),
  errors: z.int().describe('Requests answered with a status of 400 or more after they were admitted.'),
  interrupted: z.int().describe('Requests cut short: a client disconnect, a failure mid-stream or a crash.'),
});
export type UsageRow = z.infer<typeof usageRowSchema>;

export const usageListSchema = z.object({
  object: z.literal('list'),
  since: z.string(),
  until: z.string(),
  data: z.array(usageRowSchema),
});
export type UsageList = z.infer<typeof usageListSchema>;

export const auditEntrySchema = z.object({
  object: z.literal('audit_entry'),
  id: z.int(),
  created_at: z.int(),
  actor: z.string().describe('Who acted: `admin:<token id>`, `cli:<system user>`, or `server:first-start` for the organisation and key a first start makes.'),
  action: z.string().describe('`organisation.create`, `organisation.update`, `key.create`, `key.update`, `key.revoke`, `key.rotate`.'),
  subject: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  request_id: z.string().nullable().describe('Our id of the admin API request: the `x-request-id` its response carried. `null` from the CLI and the first start.'),
  client_request_id: z.string().nullable().describe('The `x-request-id` the client sent, as it came (at most 128 characters); it names nothing we made. `null` when none was sent.'),
});
export type AuditEntryObject = z.infer<typeof auditEntrySchema>;

/** `{ object: "list", data: [...] }`. */
export const listOf = <T extends z.ZodType>(item: T) => z.object({ object: z.literal('list'), data: z.array(item) });
