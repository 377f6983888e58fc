// The one service layer behind the admin API and the CLI (decisions §9): every check, every
// change and every audit entry happens here; the routes and the commands only translate.
import { issueApiKey, type ApiKeyRecord, type AuditEntry, type KeyChange, type ServiceStore, type LimitOverrides, type Organisation } from '@quantum-chat/access-control';
import { QuantumChatError, type ApiKeyPrefixes } from '@quantum-chat/core';
import type * as z from 'zod';
import { adminError } from './admin-errors.js';
import { auditEntryToWire, keyStatus, keyToWire, organisationToWire, overridesFromWire, usageRowToWire } from './admin-objects.js';
import {
  auditQuerySchema,
  createKeyRequestSchema,
  createOrganisationRequestSchema,
  defaultOverlapSeconds,
  listKeysQuerySchema,
  rotateKeyRequestSchema,
  updateKeyRequestSchema,
  updateOrganisationRequestSchema,
  usageQuerySchema,
  type ApiKeyObject,
  type AuditEntryObject,
  type CreatedApiKey,
  type OrganisationObject,
  type RotatedApiKey,
  type UsageList,
} from './admin-schemas.js';
import { parseAdminInput } from './parse-admin-input.js';

/** Who acts, for the audit log: never a secret. */
export interface AdminActor {
  /** `admin:<token id>` through the API, `cli:<system user>` from the CLI, `server:first-start` for what a first start seeds. */
  actor: string;
  /** The admin API request's id: ours, the `x-request-id` its response carries. */
  requestId?: string;
  /** The `x-request-id` the client sent, if any (at most 128 characters): kept apart from ours. */
  clientRequestId?: string;
}

export interface AdminServiceOptions {
  store: ServiceStore;
  /** The model ids a key may be limited to (the four and those the config adds). */
  modelIds: readonly string[];
  /** ms since the epoch; injected so that tests control expiry and overlaps. */
  now?: () => number;
  prefixes?: ApiKeyPrefixes;
  /** Writes this instance's pending usage rows before usage is read, so a report includes them. */
  flushUsage?: () => Promise<void>;
  /** Every audited action, also when the store could not record it (the server logs it). */
  onAudit?: (entry: Omit<AuditEntry, 'id'>, stored: boolean, error?: unknown) => void;
}

/** The admin operations, in wire shapes; each refusal is an `adminError` or the core's 400. */
export type AdminService = ReturnType<typeof createAdminService>;

/** The most days one usage report covers. */
const maxUsageDays = 366;
const dayMs = 86_400_000;

const utcDay = (time: number) => new Date(time).toISOString().slice(0, 10);

/** A validated time input (Unix seconds or ISO 8601) as ms since the epoch. */
function timeToMs(value: number | string): number {
  return typeof value === 'number' ? value * 1000 : Date.parse(value);
}

function invalid(param: string, message: string): QuantumChatError {
  return new QuantumChatError('invalid_value', message, { param });
}

/**
 * The admin service over a store: organisations, keys (the secret returned once), rotation
 * with an overlap, usage per organisation, key, model and day, and the audit log. Inputs are
 * the wire shapes (validated here, so the API and the CLI refuse the same things the same
 * way); every change is written to the audit log as `who, what, when`, never with a secret.
 *
 * @example
 * const admin = createAdminService({ store, modelIds: ['quantum-lite'] });
 * const created = await admin.createKey({ organisation: 'acme' }, { actor: 'cli:alice' });
 */
export function createAdminService(options: AdminServiceOptions) {
  const { store } = options;
  const now = options.now ?? Date.now;
  const knownModels = new Set(options.modelIds);

  async function audit(by: AdminActor, action: string, subject: string | null, details: Record<string, unknown>): Promise<void> {
    const entry = { at: now(), actor: by.actor, action, subject, details, requestId: by.requestId ?? null, clientRequestId: by.clientRequestId ?? null };
    try {
      await store.writeAudit(entry);
      options.onAudit?.(entry, true);
    } catch (error) {
      // The change is made: the answer must still carry it (a new key's secret exists only
      // there). The log line is then the record of the action.
      options.onAudit?.(entry, false, error);
    }
  }

  async function requireOrganisation(name: string, param: string | null = null): Promise<Organisation> {
    const organisation = await store.getOrganisation(name);
    if (organisation === undefined) throw adminError('organisation_not_found', `There is no organisation '${name.slice(0, 256)}'.`, { param });
    return organisation;
  }

  async function requireKey(id: string, param: string | null = null): Promise<ApiKeyRecord> {
    const key = await store.getKey(id);
    if (key === undefined) throw adminError('key_not_found', `There is no key '${id.slice(0, 256)}'.`, { param });
    return key;
  }

  function requireChangeable(key: ApiKeyRecord, verb: string): void {
    if (key.revoked) throw adminError('key_revoked', `The key ${key.id} is revoked; it cannot be ${verb}.`);
  }

  /** An expired key (its own expiry, or rotated out) is never revived: a new key is made instead (decisions §9). */
  function requireUnexpired(key: ApiKeyRecord): void {
    if (keyStatus(key, now()) !== 'expired') return;
    throw adminError('key_expired', `The key ${key.id} expired at ${new Date(key.expiresAt!).toISOString()}; an expired key stays expired: create a new key instead (POST /admin/v1/keys, or quantum-chat keys create).`);
  }

  /**
   * A rotated key's overlap ends at its expiry: it may end sooner, never later, or the PATCH
   * would undo the rotation without anyone saying so (decisions §9).
   */
  function requireRotationKept(key: ApiKeyRecord, expiresAt: number | null | undefined): void {
    if (key.rotation === undefined || expiresAt === undefined) return;
    if (expiresAt !== null && key.expiresAt !== null && expiresAt <= key.expiresAt) return;
    const { at, replacedBy } = key.rotation;
    const end = key.expiresAt === null ? '' : `: its overlap ends at ${new Date(key.expiresAt).toISOString()} and can be brought forward, never cleared or postponed`;
    throw adminError(
      'key_rotated',
      `The key ${key.id} was rotated (replaced by ${replacedBy} at ${new Date(at).toISOString()})${end}. Use ${replacedBy}, or create a new key (POST /admin/v1/keys, or quantum-chat keys create).`,
      { param: 'expires_at' },
    );
  }

  function futureTime(value: number | string | null | undefined, param: string): number | null | undefined {
    if (value === undefined || value === null) return value;
    const time = timeToMs(value);
    if (!(time > now())) throw invalid(param, `Invalid value for '${param}': must be in the future, got ${new Date(time).toISOString()}.`);
    return time;
  }

  function checkModels(models: readonly string[] | null | undefined, param: string): string[] | null | undefined {
    if (models === undefined || models === null) return models;
    models.forEach((model, index) => {
      if (!knownModels.has(model)) {
        throw invalid(`${param}[${index}]`, `Invalid value for '${param}[${index}]': unknown model '${model.slice(0, 128)}'; the models are ${[...knownModels].join(', ')}.`);
      }
    });
    return [...new Set(models)];
  }

  const body = <T extends z.ZodType>(schema: T, value: unknown) => parseAdminInput(schema, value, 'body');
  const query = <T extends z.ZodType>(schema: T, value: unknown) => parseAdminInput(schema, value ?? {}, 'query');

  return {
    async listOrganisations(): Promise<OrganisationObject[]> {
      return (await store.listOrganisations()).map(organisationToWire);
    },

    async getOrganisation(name: string): Promise<OrganisationObject> {
      return organisationToWire(await requireOrganisation(name));
    },

    async createOrganisation(input: unknown, by: AdminActor): Promise<OrganisationObject> {
      const request = body(createOrganisationRequestSchema, input);
      if ((await store.getOrganisation(request.name)) !== undefined) {
        throw adminError('organisation_exists', `The organisation '${request.name}' already exists.`, { param: 'name' });
      }
      const plan = request.plan ?? 'free';
      const limits = overridesFromWire(request.limits) as LimitOverrides;
      let created: Organisation;
      try {
        created = await store.createOrganisation({ name: request.name, plan, limits });
      } catch (error) {
        // Created meanwhile by another admin or instance.
        if ((await store.getOrganisation(request.name)) !== undefined) throw adminError('organisation_exists', `The organisation '${request.name}' already exists.`, { param: 'name' });
        throw error;
      }
      await audit(by, 'organisation.create', created.name, { plan, ...(request.limits !== undefined ? { limits: request.limits } : {}) });
      return organisationToWire(created);
    },

    async updateOrganisation(name: string, input: unknown, by: AdminActor): Promise<OrganisationObject> {
      const request = body(updateOrganisationRequestSchema, input);
      await requireOrganisation(name);
      const given = overridesFromWire(request.limits);
      const limits: LimitOverrides = {};
      const resetLimits: (keyof LimitOverrides)[] = [];
      for (const [field, value] of Object.entries(given) as [keyof LimitOverrides, number | null | 'default'][]) {
        if (value === 'default') resetLimits.push(field);
        else limits[field] = value;
      }
      const updated = await store.updateOrganisation(name, { ...(request.plan !== undefined ? { plan: request.plan } : {}), limits, resetLimits });
      await audit(by, 'organisation.update', name, request);
      return organisationToWire(updated);
    },

    async listKeys(input?: unknown): Promise<ApiKeyObject[]> {
      const filter = query(listKeysQuerySchema, input);
      if (filter.organisation !== undefined) await requireOrganisation(filter.organisation, 'organisation');
      const time = now();
      return (await store.listKeys(filter.organisation === undefined ? {} : { organisation: filter.organisation })).map((key) => keyToWire(key, time));
    },

    async getKey(id: string): Promise<ApiKeyObject> {
      return keyToWire(await requireKey(id), now());
    },

    /** The checks of `createKey` without its effects, for callers that prepare something first (the CLI creates a missing organisation). */
    checkKeyRequest(input: unknown): void {
      const request = body(createKeyRequestSchema, input);
      // What the document states (the model enum) first, then the rule in its words (the future).
      checkModels(request.allowed_models, 'allowed_models');
      futureTime(request.expires_at, 'expires_at');
    },

    async createKey(input: unknown, by: AdminActor): Promise<CreatedApiKey> {
      const request = body(createKeyRequestSchema, input);
      const allowedModels = checkModels(request.allowed_models, 'allowed_models');
      const expiresAt = futureTime(request.expires_at, 'expires_at');
      await requireOrganisation(request.organisation, 'organisation');
      const kind = request.kind ?? 'live';
      const { key, record } = await issueApiKey(store, {
        organisation: request.organisation,
        kind,
        requireSignature: request.require_signature ?? false,
        ...(expiresAt != null ? { expiresAt } : {}),
        ...(allowedModels != null ? { allowedModels } : {}),
        ...(request.limits !== undefined ? { limits: overridesFromWire(request.limits) } : {}),
        ...(options.prefixes !== undefined ? { prefixes: options.prefixes } : {}),
      });
      const wire = keyToWire(record, now());
      await audit(by, 'key.create', record.id, {
        organisation: record.organisation,
        kind,
        display: wire.display,
        require_signature: wire.require_signature,
        expires_at: wire.expires_at,
        allowed_models: wire.allowed_models,
        limits: wire.limits,
      });
      return { ...wire, secret: key };
    },

    async updateKey(id: string, input: unknown, by: AdminActor): Promise<ApiKeyObject> {
      const request = body(updateKeyRequestSchema, input);
      const allowedModels = checkModels(request.allowed_models, 'allowed_models');
      const expiresAt = futureTime(request.expires_at, 'expires_at');
      const key = await requireKey(id);
      requireChangeable(key, 'changed');
      requireUnexpired(key);
      requireRotationKept(key, expiresAt);
      const change: KeyChange = {};
      if (expiresAt !== undefined) change.expiresAt = expiresAt;
      if (allowedModels !== undefined) change.allowedModels = allowedModels;
      const limits = overridesFromWire(request.limits);
      for (const [field, value] of Object.entries(limits) as [keyof LimitOverrides, number | null][]) {
        if (value === null) (change.resetLimits = [...(change.resetLimits ?? []), field]);
        else change.limits = { ...change.limits, [field]: value };
      }
      const updated = await store.updateKey(id, change);
      if (updated === undefined) throw adminError('key_not_found', `There is no key '${id}'.`);
      await audit(by, 'key.update', id, request);
      return keyToWire(updated, now());
    },

    async revokeKey(id: string, by: AdminActor): Promise<ApiKeyObject> {
      const key = await requireKey(id);
      if (!key.revoked) {
        await store.revokeKey(id);
        await audit(by, 'key.revoke', id, { organisation: key.organisation, display: keyToWire(key, now()).display });
      }
      return keyToWire((await store.getKey(id)) ?? { ...key, revoked: true }, now());
    },

    /**
     * A new key with the old one's settings (organisation, kind, signature, models, limits and
     * expiry, unless `expires_at` is given); the old key keeps working for `overlap_seconds`,
     * then stops (its expiry is brought forward, never pushed back).
     */
    async rotateKey(id: string, input: unknown, by: AdminActor): Promise<RotatedApiKey> {
      // The body is optional, but a JSON `null` sent as one is not the object it would be.
      const request = body(rotateKeyRequestSchema, input === undefined ? {} : input);
      const newExpiry = futureTime(request.expires_at, 'expires_at');
      const old = await requireKey(id);
      requireChangeable(old, 'rotated');
      const time = now();
      requireUnexpired(old);
      const overlapSeconds = request.overlap_seconds ?? defaultOverlapSeconds;
      const expiresAt = newExpiry === undefined ? old.expiresAt : newExpiry;
      const { key, record } = await issueApiKey(store, {
        organisation: old.organisation,
        kind: old.kind,
        requireSignature: old.requireSignature,
        ...(expiresAt !== null ? { expiresAt } : {}),
        ...(old.allowedModels !== null ? { allowedModels: old.allowedModels } : {}),
        limits: old.limits,
        ...(options.prefixes !== undefined ? { prefixes: options.prefixes } : {}),
      });
      const overlapEnd = time + overlapSeconds * 1000;
      const previous =
        (await store.updateKey(old.id, { expiresAt: old.expiresAt === null ? overlapEnd : Math.min(old.expiresAt, overlapEnd), rotation: { at: time, replacedBy: record.id } })) ?? old;
      const wire = keyToWire(record, now());
      const previousWire = keyToWire(previous, now());
      await audit(by, 'key.rotate', old.id, {
        organisation: old.organisation,
        display: previousWire.display,
        new_key_id: record.id,
        new_display: wire.display,
        overlap_seconds: overlapSeconds,
        previous_expires_at: previousWire.expires_at,
      });
      return { ...wire, secret: key, previous_key: previousWire };
    },

    /** Usage per UTC day, organisation, key and model: 30 days up to today unless `since`/`until` say otherwise. */
    async usage(input?: unknown): Promise<UsageList> {
      const filter = query(usageQuerySchema, input);
      const until = filter.until ?? utcDay(now());
      const since = filter.since ?? utcDay(Date.parse(until) - 29 * dayMs);
      const first = Date.parse(since);
      const last = Date.parse(until);
      if (first > last) throw invalid('since', `Invalid value for 'since': ${since} is after 'until' (${until}).`);
      if ((last - first) / dayMs + 1 > maxUsageDays) throw invalid('since', `Invalid value for 'since': a report covers at most ${maxUsageDays} days.`);
      if (filter.organisation !== undefined) await requireOrganisation(filter.organisation, 'organisation');
      if (filter.key_id !== undefined) await requireKey(filter.key_id, 'key_id');
      await options.flushUsage?.();
      const rows = await store.summariseUsageByDay({
        ...(filter.organisation !== undefined ? { organisation: filter.organisation } : {}),
        ...(filter.key_id !== undefined ? { keyId: filter.key_id } : {}),
        ...(filter.model !== undefined ? { model: filter.model } : {}),
        since: first,
        until: last + dayMs,
      });
      return { object: 'list', since, until, data: rows.map(usageRowToWire) };
    },

    /** An organisation's totals per key and model (what `quantum-chat usage` prints). */
    async usageTotals(organisation: string, since?: number) {
      await requireOrganisation(organisation, 'organisation');
      await options.flushUsage?.();
      return store.summariseUsage({ organisation, ...(since !== undefined ? { since } : {}) });
    },

    async auditLog(input?: unknown): Promise<AuditEntryObject[]> {
      const filter = query(auditQuerySchema, input);
      const since = filter.since === undefined ? undefined : timeToMs(filter.since);
      return (await store.listAudit({ ...(since !== undefined ? { since } : {}), limit: filter.limit ?? 100 })).map(auditEntryToWire);
    },
  };
}

