// Store records as the admin API shows them.
import { displayKeyRecord, resolveLimits, type ApiKeyRecord, type AuditEntry, type DailyUsageRow, type LimitOverrides, type Limits, type Organisation } from '@quantum-chat/access-control';
import { wireLimitFields, type ApiKeyObject, type AuditEntryObject, type OrganisationObject, type UsageRow, type WireLimitField } from './admin-schemas.js';

/** ms since the epoch as the wire's Unix seconds. */
const toSeconds = (ms: number) => Math.floor(ms / 1000);

type WireLimits<T> = Partial<Record<WireLimitField, T>>;

/** Limit overrides (only the fields set) in wire names. */
function overridesToWire(limits: LimitOverrides): WireLimits<number | null> {
  const wire: WireLimits<number | null> = {};
  for (const [name, field] of Object.entries(wireLimitFields) as [WireLimitField, keyof Limits][]) {
    if (limits[field] !== undefined) wire[name] = limits[field]!;
  }
  return wire;
}

/** Wire limits (only the fields given) as limit overrides. */
export function overridesFromWire<T>(limits: WireLimits<T> | undefined): Partial<Record<keyof Limits, T>> {
  const overrides: Partial<Record<keyof Limits, T>> = {};
  for (const [name, field] of Object.entries(wireLimitFields) as [WireLimitField, keyof Limits][]) {
    if (limits?.[name] !== undefined) overrides[field] = limits[name];
  }
  return overrides;
}

export function organisationToWire(organisation: Organisation): OrganisationObject {
  const limits = resolveLimits(organisation.plan, organisation.limits);
  return {
    object: 'organisation',
    name: organisation.name,
    plan: organisation.plan,
    limits: { requests_per_minute: limits.requestsPerMinute, tokens_per_minute: limits.tokensPerMinute, tokens_per_day: limits.tokensPerDay },
    limit_overrides: overridesToWire(organisation.limits),
    created_at: toSeconds(organisation.createdAt),
  };
}

/** `active`, `expired` (its expiry has passed) or `revoked`. */
export function keyStatus(key: ApiKeyRecord, now: number): ApiKeyObject['status'] {
  if (key.revoked) return 'revoked';
  return key.expiresAt !== null && key.expiresAt <= now ? 'expired' : 'active';
}

export function keyToWire(key: ApiKeyRecord, now: number): ApiKeyObject {
  return {
    object: 'api_key',
    id: key.id,
    organisation: key.organisation,
    kind: key.kind,
    display: displayKeyRecord(key),
    status: keyStatus(key, now),
    require_signature: key.requireSignature,
    created_at: toSeconds(key.createdAt),
    expires_at: key.expiresAt === null ? null : toSeconds(key.expiresAt),
    allowed_models: key.allowedModels,
    limits: overridesToWire(key.limits),
  };
}

export function usageRowToWire(row: DailyUsageRow): UsageRow {
  return {
    object: 'usage.day',
    day: row.day,
    organisation: row.organisation,
    key_id: row.keyId,
    key_display: row.keyDisplay,
    kind: row.kind,
    model: row.model,
    requests: row.requests,
    prompt_tokens: row.promptTokens,
    cached_prompt_tokens: row.cachedPromptTokens,
    completion_tokens: row.completionTokens,
    total_tokens: row.promptTokens + row.completionTokens,
    errors: row.errors,
    interrupted: row.interrupted,
  };
}

export function auditEntryToWire(entry: AuditEntry): AuditEntryObject {
  return {
    object: 'audit_entry',
    id: entry.id,
    created_at: toSeconds(entry.at),
    actor: entry.actor,
    action: entry.action,
    subject: entry.subject,
    details: entry.details,
    request_id: entry.requestId,
    client_request_id: entry.clientRequestId ?? null,
  };
}
