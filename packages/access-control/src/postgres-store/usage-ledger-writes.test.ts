import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { UsageRecord } from '../service-store/index.js';
import { usageColumns, usageToValues } from '../sql-store/rows.js';
import { usageToJsonRow } from './usage-ledger-writes.js';

const usageRecord: fc.Arbitrary<UsageRecord> = fc.record(
  {
    usageId: fc.string(),
    requestId: fc.string(),
    keyId: fc.string(),
    organisation: fc.string(),
    model: fc.string(),
    promptTokens: fc.nat(),
    completionTokens: fc.nat(),
    cachedPromptTokens: fc.nat(),
    status: fc.integer({ min: 100, max: 599 }),
    api: fc.constantFrom('chat.completions' as const, 'responses' as const),
    interrupted: fc.boolean(),
    settled: fc.boolean(),
    abandoned: fc.boolean(),
    timestamp: fc.nat(),
    daily: fc.record({ bucket: fc.string(), day: fc.string(), charged: fc.nat() }),
  },
  { requiredKeys: ['usageId', 'requestId', 'keyId', 'organisation', 'model', 'promptTokens', 'completionTokens', 'status', 'interrupted', 'settled', 'timestamp'] },
);

describe('usageToJsonRow', () => {
  it('should hold every usage column, in their order, with the values the SQL stores write', () => {
    fc.assert(
      fc.property(usageRecord, fc.nat(), (record, updatedAt) => {
        const row = usageToJsonRow(record, updatedAt);
        expect(Object.keys(row)).toEqual([...usageColumns]);
        expect(Object.values(row)).toEqual(usageToValues(record, updatedAt, (value) => value));
      }),
    );
  });
});
