import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/hash-api-key.js';
import { issueApiKey } from '../src/issue-api-key.js';
import type { ServiceStore, StoreChange, UsageRecord } from '../src/service-store/index.js';

function usage(overrides: Partial<UsageRecord>): UsageRecord {
  return {
    usageId: overrides.requestId ?? 'req_1',
    requestId: 'req_1',
    keyId: 'key_1',
    organisation: 'acme',
    model: 'quantum-lite',
    promptTokens: 10,
    completionTokens: 5,
    status: 200,
    interrupted: false,
    settled: true,
    timestamp: 1_000,
    ...overrides,
  };
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface StoreFactory {
  /** A new, empty store. */
  open(): Promise<ServiceStore>;
  /** Two connections to one new, empty store (two processes would have these); absent for the memory store. */
  openShared?(): Promise<[ServiceStore, ServiceStore]>;
}

/** The behaviour every `ServiceStore` shares; each store runs it with its own factory. */
export function describeServiceStoreContract(name: string, factory: StoreFactory): void {
  const { open } = factory;
  describe(`${name} (store contract)`, () => {
    it('should migrate on first use, and again as a no-op', async () => {
      const store = await open();
      const first = await store.migrate();
      expect(first.to).toBeGreaterThanOrEqual(first.from);
      expect(await store.migrate()).toEqual({ from: first.to, to: first.to });
      await store.ping();
      await store.close();
    });

    it('should create, read and list organisations', async () => {
      const store = await open();
      await store.createOrganisation({ name: 'acme', plan: 'free' });
      await store.createOrganisation({ name: 'beta', plan: 'elite', limits: { tokensPerDay: 5000 } });
      expect(await store.getOrganisation('acme')).toMatchObject({ name: 'acme', plan: 'free', limits: {} });
      expect((await store.getOrganisation('beta'))?.limits).toEqual({ tokensPerDay: 5000 });
      expect(await store.getOrganisation('nobody')).toBeUndefined();
      expect((await store.listOrganisations()).map((organisation) => organisation.name)).toEqual(['acme', 'beta']);
      await expect(store.createOrganisation({ name: 'acme', plan: 'elite' })).rejects.toThrow(/acme/);
      await store.close();
    });

    it('should change plans, merge limit overrides (null lifts a limit) and reset them', async () => {
      const store = await open();
      await store.createOrganisation({ name: 'acme', plan: 'free', limits: { requestsPerMinute: 5 } });
      await store.updateOrganisation('acme', { limits: { tokensPerMinute: 700, tokensPerDay: null } });
      const updated = await store.updateOrganisation('acme', { plan: 'elite' });
      expect(updated).toMatchObject({ plan: 'elite', limits: { requestsPerMinute: 5, tokensPerMinute: 700, tokensPerDay: null } });
      const reset = await store.updateOrganisation('acme', { resetLimits: ['requestsPerMinute', 'tokensPerDay'] });
      expect(reset.limits).toEqual({ tokensPerMinute: 700 });
      await expect(store.updateOrganisation('nobody', { plan: 'free' })).rejects.toThrow(/nobody/);
      await store.close();
    });

    it('should find a key by its SHA-256 only, with its organisation', async () => {
      const store = await open();
      await store.createOrganisation({ name: 'acme', plan: 'free' });
      const { key, record } = await issueApiKey(store, { organisation: 'acme', kind: 'test', requireSignature: true });
      expect(record).toMatchObject({
        organisation: 'acme', kind: 'test', prefix: 'qc_test_', last4: key.slice(-4), requireSignature: true, revoked: false,
        expiresAt: null, allowedModels: null, limits: {},
      });
      expect(record.hash).toBe(hashApiKey(key));
      expect(JSON.stringify(record)).not.toContain(key);
      const found = await store.findKeyByHash(hashApiKey(key));
      expect(found?.key).toEqual(record);
      expect(found?.organisation).toMatchObject({ name: 'acme', plan: 'free' });
      expect(await store.getKey(record.id)).toEqual(record);
      expect(await store.getKey('key_missing')).toBeUndefined();
      expect(await store.findKeyByHash(hashApiKey(`${key}x`))).toBeUndefined();
      await store.close();
    });

    it('should keep a key\'s expiry, allowed models and own limits', async () => {
      const store = await open();
      await store.createOrganisation({ name: 'acme', plan: 'free' });
      const record = await store.createKey({
        organisation: 'acme', kind: 'live', hash: 'h'.repeat(64), prefix: 'qc_live_', last4: 'abcd',
        expiresAt: 1_900_000_000_000, allowedModels: ['quantum-lite', 'quantum-flash'], limits: { requestsPerMinute: 3, tokensPerDay: null },
      });
      expect(record).toMatchObject({ expiresAt: 1_900_000_000_000, allowedModels: ['quantum-lite', 'quantum-flash'], limits: { requestsPerMinute: 3, tokensPerDay: null } });
      expect((await store.findKeyByHash('h'.repeat(64)))?.key).toEqual(record);
      await store.close();
    });

    it("should change a key's expiry, allowed models and own limits, telling subscribers", async () => {
      const store = await open();
      await store.createOrganisation({ name: 'acme', plan: 'free' });
      const { record } = await issueApiKey(store, { organisation: 'acme', kind: 'live', allowedModels: ['quantum-lite'] });
      const heard: StoreChange[] = [];
      const unsubscribe = store.subscribe((change) => heard.push(change));
      const expiring = await store.updateKey(record.id, { expiresAt: 1_900_000_000_000 });
      expect(expiring).toEqual({ ...record, expiresAt: 1_900_000_000_000 });
      expect((await store.findKeyByHash(record.hash))?.key.expiresAt).toBe(1_900_000_000_000);
      const changed = await store.updateKey(record.id, { allowedModels: null, limits: { requestsPerMinute: 5, tokensPerMinute: 900 } });
      expect(changed).toMatchObject({ expiresAt: 1_900_000_000_000, allowedModels: null, limits: { requestsPerMinute: 5, tokensPerMinute: 900 } });
      const reset = await store.updateKey(record.id, { expiresAt: null, allowedModels: ['quantum-flash', 'quantum-pro'], resetLimits: ['requestsPerMinute'] });
      expect(reset).toMatchObject({ expiresAt: null, allowedModels: ['quantum-flash', 'quantum-pro'], limits: { tokensPerMinute: 900 } });
      expect(await store.getKey(record.id)).toEqual(reset);
      expect(await store.updateKey('key_missing', { expiresAt: 1 })).toBeUndefined();
      await until(() => heard.filter((change) => change.kind === 'key' && change.hash === record.hash).length >= 1);
      unsubscribe();
      await store.close();
    });

    it('should record a rotation on the key it replaced, kept through later changes', async () => {
      const store = await open();
      await store.createOrganisation({ name: 'acme', plan: 'free' });
      const { record: old } = await issueApiKey(store, { organisation: 'acme', kind: 'live' });
      const { record: successor } = await issueApiKey(store, { organisation: 'acme', kind: 'live' });
      expect(old.rotation).toBeUndefined();
      const rotated = await store.updateKey(old.id, { expiresAt: 1_900_000_060_000, rotation: { at: 1_900_000_000_000, replacedBy: successor.id } });
      expect(rotated).toEqual({ ...old, expiresAt: 1_900_000_060_000, rotation: { at: 1_900_000_000_000, replacedBy: successor.id } });
      const changed = await store.updateKey(old.id, { expiresAt: 1_900_000_030_000, limits: { requestsPerMinute: 5 } });
      expect(changed?.rotation).toEqual({ at: 1_900_000_000_000, replacedBy: successor.id });
      expect((await store.findKeyByHash(old.hash))?.key).toEqual(changed);
      expect((await store.listKeys({ organisation: 'acme' })).find((key) => key.id === old.id)).toEqual(changed);
      expect((await store.getKey(successor.id))?.rotation).toBeUndefined();
      await store.close();
    });

    it('should keep an audit log, newest first, never changed, filtered by time and bounded by a limit', async () => {
      const store = await open();
      expect(await store.listAudit()).toEqual([]);
      await store.writeAudit({ at: 1_000, actor: 'ops', action: 'organisation.create', subject: 'acme', details: { plan: 'free' }, requestId: 'req_1' });
      await store.writeAudit({ at: 2_000, actor: 'cli:root', action: 'key.create', subject: 'key_1', details: { organisation: 'acme', kind: 'live' }, requestId: null });
      await store.writeAudit({ at: 3_000, actor: 'ops', action: 'key.revoke', subject: 'key_1', details: {}, requestId: 'req_3', clientRequestId: 'client-chosen-3' });
      const all = await store.listAudit();
      expect(all.map(({ id: _id, ...entry }) => entry)).toEqual([
        { at: 3_000, actor: 'ops', action: 'key.revoke', subject: 'key_1', details: {}, requestId: 'req_3', clientRequestId: 'client-chosen-3' },
        { at: 2_000, actor: 'cli:root', action: 'key.create', subject: 'key_1', details: { organisation: 'acme', kind: 'live' }, requestId: null, clientRequestId: null },
        { at: 1_000, actor: 'ops', action: 'organisation.create', subject: 'acme', details: { plan: 'free' }, requestId: 'req_1', clientRequestId: null },
      ]);
      expect(new Set(all.map((entry) => entry.id)).size).toBe(3);
      expect((await store.listAudit({ limit: 2 })).map((entry) => entry.at)).toEqual([3_000, 2_000]);
      expect((await store.listAudit({ since: 2_000 })).map((entry) => entry.at)).toEqual([3_000, 2_000]);
      await store.close();
    });

    it('should total usage per organisation, key, model and UTC day, filtered', async () => {
      const store = await open();
      await store.createOrganisation({ name: 'acme', plan: 'free' });
      const { record } = await issueApiKey(store, { organisation: 'acme', kind: 'live' });
      const day1 = Date.UTC(2030, 0, 1);
      const day2 = Date.UTC(2030, 0, 2);
      await store.writeUsage([
        usage({ requestId: 'req_1', keyId: record.id, timestamp: day1 + 1 }),
        usage({ requestId: 'req_2', keyId: record.id, timestamp: day1 + 86_399_999, status: 429, completionTokens: 0 }),
        usage({ requestId: 'req_3', keyId: record.id, timestamp: day2, model: 'quantum-flash', interrupted: true }),
        usage({ requestId: 'req_4', keyId: record.id, timestamp: day2 + 5, cachedPromptTokens: 6 }),
        usage({ requestId: 'req_5', keyId: 'key_other', organisation: 'beta', timestamp: day2 + 7, promptTokens: 1 }),
      ]);
      const display = `qc_live_…${record.last4}`;
      const row = (day: string, model: string, counts: Record<string, number>) => ({
        day, organisation: 'acme', keyId: record.id, keyDisplay: display, kind: 'live', model,
        requests: 1, promptTokens: 10, cachedPromptTokens: 0, completionTokens: 5, errors: 0, interrupted: 0, ...counts,
      });
      expect(await store.summariseUsageByDay({ organisation: 'acme' })).toEqual([
        row('2030-01-01', 'quantum-lite', { requests: 2, promptTokens: 20, completionTokens: 5, errors: 1 }),
        row('2030-01-02', 'quantum-flash', { interrupted: 1 }),
        row('2030-01-02', 'quantum-lite', { cachedPromptTokens: 6 }),
      ]);
      const everyone = await store.summariseUsageByDay({});
      expect(everyone.map((entry) => [entry.day, entry.organisation, entry.keyId, entry.model])).toEqual([
        ['2030-01-01', 'acme', record.id, 'quantum-lite'],
        ['2030-01-02', 'acme', record.id, 'quantum-flash'],
        ['2030-01-02', 'acme', record.id, 'quantum-lite'],
        ['2030-01-02', 'beta', 'key_other', 'quantum-lite'],
      ]);
      expect(everyone.at(-1)).toMatchObject({ keyDisplay: '', kind: 'live', promptTokens: 1 });
      expect((await store.summariseUsageByDay({ since: day2, until: day2 + 6 })).map((entry) => [entry.organisation, entry.model, entry.requests])).toEqual([
        ['acme', 'quantum-flash', 1],
        ['acme', 'quantum-lite', 1],
      ]);
      expect((await store.summariseUsageByDay({ keyId: 'key_other' })).map((entry) => entry.organisation)).toEqual(['beta']);
      expect((await store.summariseUsageByDay({ model: 'quantum-flash' })).map((entry) => entry.day)).toEqual(['2030-01-02']);
      await store.close();
    });

    it('should refuse a key for an unknown organisation, or a hash twice', async () => {
      const store = await open();
      await expect(issueApiKey(store, { organisation: 'ghost', kind: 'live' })).rejects.toThrow(/ghost/);
      await store.createOrganisation({ name: 'acme', plan: 'free' });
      const input = { organisation: 'acme', kind: 'live' as const, hash: 'a'.repeat(64), prefix: 'qc_live_', last4: 'abcd' };
      await store.createKey(input);
      await expect(store.createKey(input)).rejects.toThrow(/hash/);
      await store.close();
    });

    it('should list keys per organisation and revoke them, telling subscribers', async () => {
      const store = await open();
      await store.createOrganisation({ name: 'acme', plan: 'free' });
      await store.createOrganisation({ name: 'beta', plan: 'free' });
      const first = await issueApiKey(store, { organisation: 'acme', kind: 'live' });
      await issueApiKey(store, { organisation: 'beta', kind: 'test' });
      const heard: StoreChange[] = [];
      const unsubscribe = store.subscribe((change) => heard.push(change));
      expect(await store.listKeys()).toHaveLength(2);
      expect((await store.listKeys({ organisation: 'acme' })).map((key) => key.id)).toEqual([first.record.id]);
      expect(await store.revokeKey(first.record.id)).toBe(true);
      expect(await store.revokeKey('key_missing')).toBe(false);
      expect((await store.findKeyByHash(hashApiKey(first.key)))?.key.revoked).toBe(true);
      await until(() => heard.some((change) => change.kind === 'key' && change.hash === first.record.hash));
      unsubscribe();
      await store.close();
    });

    it('should record usage and total it per key and model, since a time', async () => {
      const store = await open();
      await store.createOrganisation({ name: 'acme', plan: 'free' });
      const { record } = await issueApiKey(store, { organisation: 'acme', kind: 'live' });
      await store.writeUsage([
        usage({ keyId: record.id, timestamp: 1_000, cachedPromptTokens: 8 }),
        usage({ keyId: record.id, requestId: 'req_2', status: 502, interrupted: true, completionTokens: 2, timestamp: 2_000 }),
      ]);
      await store.writeUsage([usage({ keyId: record.id, requestId: 'req_3', model: 'quantum-pro', timestamp: 3_000 })]);
      await store.writeUsage([usage({ keyId: 'key_other', organisation: 'beta', requestId: 'req_4', timestamp: 3_000 })]);
      const summary = await store.summariseUsage({ organisation: 'acme' });
      expect(summary).toEqual([
        { keyId: record.id, keyDisplay: `qc_live_…${record.last4}`, kind: 'live', model: 'quantum-lite', requests: 2, promptTokens: 20, cachedPromptTokens: 8, completionTokens: 7, errors: 1, interrupted: 1 },
        { keyId: record.id, keyDisplay: `qc_live_…${record.last4}`, kind: 'live', model: 'quantum-pro', requests: 1, promptTokens: 10, cachedPromptTokens: 0, completionTokens: 5, errors: 0, interrupted: 0 },
      ]);
      expect((await store.summariseUsage({ organisation: 'acme', since: 2_500 })).map((row) => row.model)).toEqual(['quantum-pro']);
      expect((await store.listUsage({ organisation: 'acme' })).map((row) => row.requestId)).toEqual(['req_1', 'req_2', 'req_3']);
      await store.close();
    });

    it('should keep the cached prompt tokens a model reported with a row, and none where it reported none', async () => {
      const store = await open();
      await store.writeUsage([usage({ requestId: 'req_1', usageId: 'u_1', settled: false }), usage({ requestId: 'req_2', usageId: 'u_2' })]);
      await store.writeUsage([usage({ requestId: 'req_1', usageId: 'u_1', promptTokens: 2006, cachedPromptTokens: 1920 })]);
      const rows = await store.listUsage({ organisation: 'acme' });
      expect(rows.map((row) => [row.usageId, row.promptTokens, row.cachedPromptTokens])).toEqual([
        ['u_1', 2006, 1920],
        ['u_2', 10, undefined],
      ]);
      expect(rows[1]).not.toHaveProperty('cachedPromptTokens');
      await store.close();
    });

    it('should say which API a usage row came through: chat completions unless it says responses, and the settled row decides', async () => {
      const store = await open();
      await store.writeUsage([
        usage({ requestId: 'req_chat', usageId: 'u_chat' }),
        usage({ requestId: 'req_resp', usageId: 'u_resp', api: 'responses' }),
        usage({ requestId: 'req_running', usageId: 'u_running', settled: false }),
      ]);
      // A running row is written before its API is known; its settled write says it.
      await store.writeUsage([usage({ requestId: 'req_running', usageId: 'u_running', api: 'responses' })]);
      const rows = await store.listUsage({ organisation: 'acme' });
      expect(rows.map((row) => [row.usageId, row.api])).toEqual([
        ['u_chat', 'chat.completions'],
        ['u_resp', 'responses'],
        ['u_running', 'responses'],
      ]);
      await store.close();
    });

    it('should keep the API a running row was written with, when its instance settles it and when the sweep does', async () => {
      const store = await open();
      await store.writeUsage([
        usage({ requestId: 'req_settled', settled: false, api: 'responses' }),
        usage({ requestId: 'req_abandoned', settled: false, api: 'responses' }),
      ]);
      await store.writeUsage([usage({ requestId: 'req_settled', api: 'responses' })]);
      expect(await store.settleAbandonedUsage(Date.now() + 60_000)).toBe(1);
      const rows = await store.listUsage({ organisation: 'acme' });
      expect(rows.map((row) => [row.usageId, row.abandoned ?? false, row.api])).toEqual([
        ['req_settled', false, 'responses'],
        ['req_abandoned', true, 'responses'],
      ]);
      await store.close();
    });

    it('should never count a retried usage write twice, and never change a settled row', async () => {
      const store = await open();
      const batch = [usage({ requestId: 'req_1' }), usage({ requestId: 'req_2', completionTokens: 7 })];
      await store.writeUsage(batch);
      await store.writeUsage(batch);
      await store.writeUsage([usage({ requestId: 'req_1', completionTokens: 999 })]);
      const rows = await store.listUsage({ organisation: 'acme' });
      expect(rows.map((row) => [row.usageId, row.completionTokens, row.settled])).toEqual([
        ['req_1', 5, true],
        ['req_2', 7, true],
      ]);
      await store.close();
    });

    it('should reserve daily tokens atomically and never past the limit', async () => {
      const store = await open();
      const day = '2030-01-02';
      const results = await Promise.all(Array.from({ length: 30 }, () => store.reserveDailyTokens({ bucket: 'acme:live', day, tokens: 10, limit: 200 })));
      expect(results.filter((result) => result.admitted)).toHaveLength(20);
      expect(results.filter((result) => !result.admitted).every((result) => result.total === 200)).toBe(true);
      expect(await store.readDailyTokens({ bucket: 'acme:live', day })).toBe(200);
      expect(await store.reserveDailyTokens({ bucket: 'acme:live', day: '2030-01-03', tokens: 201, limit: 200 })).toEqual({ admitted: false, total: 0 });
      await store.addDailyTokens({ bucket: 'acme:live', day, tokens: -15 });
      expect(await store.reserveDailyTokens({ bucket: 'acme:live', day, tokens: 15, limit: 200 })).toEqual({ admitted: true, total: 200 });
      expect(await store.readDailyTokens({ bucket: 'acme:test', day })).toBe(0);
      await store.close();
    });

    it('should settle the day to the tokens used: running rows count their reservation, settled rows their tokens', async () => {
      const store = await open();
      const day = '2030-01-02';
      const bucket = 'acme:live';
      const read = () => store.readDailyTokens({ bucket, day });
      await store.reserveDailyTokens({ bucket, day, tokens: 1000, limit: 10_000 });
      const running = usage({ requestId: 'req_run', settled: false, completionTokens: 40, daily: { bucket, day, charged: 1000 } });
      await store.writeUsage([running]);
      expect(await read()).toBe(1000);
      await store.writeUsage([{ ...running, completionTokens: 90, settled: true }]);
      expect(await read()).toBe(100);
      await store.writeUsage([{ ...running, completionTokens: 90, settled: true }]);
      expect(await read()).toBe(100);
      // Reserved while the store was out of reach: nothing charged then, all of it once settled.
      await store.writeUsage([usage({ requestId: 'req_late', daily: { bucket, day, charged: 0 } })]);
      expect(await read()).toBe(115);
      await store.close();
    });

    it('should settle the days of one write together: rows settling and new rows, settled and running, on two days', async () => {
      const store = await open();
      const bucket = 'acme:live';
      const [first, second] = ['2030-01-02', '2030-01-03'] as const;
      const read = (day: string) => store.readDailyTokens({ bucket, day });
      for (const day of [first, second]) await store.reserveDailyTokens({ bucket, day, tokens: 200, limit: 10_000 });
      const running = [first, second].map((day) => usage({ requestId: `req_run_${day}`, settled: false, daily: { bucket, day, charged: 100 } }));
      await store.writeUsage(running);
      expect([await read(first), await read(second)]).toEqual([200, 200]);
      await store.writeUsage([
        { ...running[0]!, settled: true, completionTokens: 70 },
        usage({ requestId: 'req_new_settled', completionTokens: 20, daily: { bucket, day: first, charged: 100 } }),
        usage({ requestId: 'req_new_running', settled: false, daily: { bucket, day: second, charged: 100 } }),
        { ...running[1]!, settled: true, completionTokens: 190 },
      ]);
      // First day: 80 + 30 used. Second: 200 used, and the running row's 100 still reserved.
      expect([await read(first), await read(second)]).toEqual([110, 300]);
      await store.close();
    });

    it('should settle rows their instance stopped writing from the last count, and let that instance still settle them', async () => {
      const store = await open();
      const day = '2030-01-02';
      const bucket = 'acme:live';
      await store.reserveDailyTokens({ bucket, day, tokens: 500, limit: 10_000 });
      await store.reserveDailyTokens({ bucket, day, tokens: 500, limit: 10_000 });
      const crashed = usage({ requestId: 'req_crashed', settled: false, completionTokens: 30, daily: { bucket, day, charged: 500 } });
      const slow = usage({ requestId: 'req_slow', settled: false, completionTokens: 20, daily: { bucket, day, charged: 500 } });
      await store.writeUsage([crashed, slow]);
      expect(await store.settleAbandonedUsage(Date.now() + 60_000)).toBe(2);
      expect(await store.settleAbandonedUsage(Date.now() + 60_000)).toBe(0);
      const rows = await store.listUsage({ organisation: 'acme' });
      expect(rows.map((row) => [row.usageId, row.settled, row.abandoned, row.interrupted, row.completionTokens])).toEqual([
        ['req_crashed', true, true, true, 30],
        ['req_slow', true, true, true, 20],
      ]);
      expect(await store.readDailyTokens({ bucket, day })).toBe(40 + 30);
      // The slow instance was alive after all: its settled write wins over the sweep.
      await store.writeUsage([{ ...slow, settled: true, completionTokens: 60 }]);
      expect((await store.listUsage({ organisation: 'acme' })).find((row) => row.usageId === 'req_slow')).toMatchObject({ settled: true, completionTokens: 60 });
      expect(await store.readDailyTokens({ bucket, day })).toBe(40 + 70);
      await store.close();
    });

    if (factory.openShared !== undefined) {
      it('should share keys, revocations and daily counts between two connections (two processes)', async () => {
        const [first, second] = await factory.openShared!();
        await first.createOrganisation({ name: 'acme', plan: 'free' });
        const { key, record } = await issueApiKey(first, { organisation: 'acme', kind: 'test' });
        const heard: StoreChange[] = [];
        second.subscribe((change) => heard.push(change));
        // Let the subscription start before the change.
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect((await second.findKeyByHash(hashApiKey(key)))?.key.revoked).toBe(false);
        await first.revokeKey(record.id);
        await until(() => heard.some((change) => change.kind === 'key' && change.hash === record.hash));
        expect((await second.findKeyByHash(hashApiKey(key)))?.key.revoked).toBe(true);
        const { record: rotated } = await issueApiKey(first, { organisation: 'acme', kind: 'live' });
        await first.updateKey(rotated.id, { expiresAt: 1_900_000_000_000 });
        await until(() => heard.some((change) => change.kind === 'key' && change.hash === rotated.hash));
        expect((await second.findKeyByHash(rotated.hash))?.key.expiresAt).toBe(1_900_000_000_000);
        await first.updateOrganisation('acme', { limits: { requestsPerMinute: 2 } });
        await until(() => heard.some((change) => change.kind === 'organisation' && change.name === 'acme'));
        const day = '2030-01-02';
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, index) => (index % 2 ? first : second).reserveDailyTokens({ bucket: 'acme:test', day, tokens: 7, limit: 70 })),
        );
        expect(results.filter((result) => result.admitted)).toHaveLength(10);
        expect(await second.readDailyTokens({ bucket: 'acme:test', day })).toBe(70);
        await first.close();
        await second.close();
      });
    }
  });
}
