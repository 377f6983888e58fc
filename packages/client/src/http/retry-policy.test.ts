import { describe, expect, it } from 'vitest';
import { retryDelayMs, shouldRetryResponse } from './retry-policy.js';

describe('shouldRetryResponse', () => {
  it('should retry 408, 409, 429 and 5xx, and nothing else', () => {
    const retried = [400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 502, 503, 504].filter((status) => shouldRetryResponse(status, {}));
    expect(retried).toEqual([408, 409, 429, 500, 502, 503, 504]);
  });

  it('should let x-should-retry override the status', () => {
    expect(shouldRetryResponse(429, { 'x-should-retry': 'false' })).toBe(false);
    expect(shouldRetryResponse(400, { 'x-should-retry': 'true' })).toBe(true);
  });
});

describe('retryDelayMs', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');

  it('should prefer retry-after-ms, then retry-after in seconds or as an HTTP date', () => {
    expect(retryDelayMs(0, { 'retry-after-ms': '250', 'retry-after': '9' }, now)).toBe(250);
    expect(retryDelayMs(0, { 'retry-after': '2' }, now)).toBe(2000);
    expect(retryDelayMs(0, { 'retry-after': '0.5' }, now)).toBe(500);
    expect(retryDelayMs(0, { 'retry-after': new Date(now + 3000).toUTCString() }, now)).toBe(3000);
  });

  it('should back off exponentially with up to 25% jitter when the server gives no hint', () => {
    expect([0, 1, 2, 3, 4, 5].map((retries) => retryDelayMs(retries, {}, now, () => 0))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
    expect(retryDelayMs(0, {}, now, () => 0.999999)).toBe(375);
  });

  it('should not honour a hint of a minute or more, nor a malformed one', () => {
    expect(retryDelayMs(1, { 'retry-after': '3600' }, now, () => 0)).toBe(1000);
    expect(retryDelayMs(1, { 'retry-after': 'soon' }, now, () => 0)).toBe(1000);
  });
});
