import { describe, expect, it } from 'vitest';
import { generateApiKey, parseApiKey } from './parse-api-key.js';

// Keys made by an earlier release: the checksum must stay the same CRC-32 forever.
const issuedLive = 'qc_live_Xua1MtxAhdZsreAbi9oGAOsn78F3fD31cYuc';
const issuedTest = 'qc_test_yJb9VS4fAu8R7EhPnkyZJuNC3IfPof10Un8B';

describe('parseApiKey', () => {
  it('accepts keys issued earlier and new ones', () => {
    expect(parseApiKey(issuedLive)).toEqual({ kind: 'live', key: issuedLive, display: 'qc_live_…cYuc' });
    expect(parseApiKey(issuedTest)?.kind).toBe('test');
    const fresh = generateApiKey('test');
    expect(parseApiKey(fresh)?.key).toBe(fresh);
  });

  it('refuses a key with one character changed, a wrong length or a foreign prefix', () => {
    expect(parseApiKey(issuedLive.slice(0, 20) + (issuedLive[20] === 'a' ? 'b' : 'a') + issuedLive.slice(21))).toBeUndefined();
    expect(parseApiKey(issuedLive.slice(0, -1))).toBeUndefined();
    expect(parseApiKey(issuedLive.replace('qc_live_', 'sk_live_'))).toBeUndefined();
  });
});
