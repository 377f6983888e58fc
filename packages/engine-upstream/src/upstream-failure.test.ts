import { describe, expect, it } from 'vitest';
import { failureFromNetwork, failureFromStatus, networkErrorCode, retryAfterHeaders } from './upstream-failure.js';

const headers = (values: Record<string, string> = {}) => new Headers(values);

describe('retryAfterHeaders', () => {
  it('should prefer retry-after-ms and round seconds up to at least 1', () => {
    expect(retryAfterHeaders(headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toEqual({ 'retry-after': '1', 'retry-after-ms': '250' });
  });

  it('should read seconds and HTTP dates', () => {
    expect(retryAfterHeaders(headers({ 'retry-after': '7' }))).toEqual({ 'retry-after': '7', 'retry-after-ms': '7000' });
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterHeaders(headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), undefined, now)).toEqual({ 'retry-after': '30', 'retry-after-ms': '30000' });
  });

  it('should fall back only when asked to', () => {
    expect(retryAfterHeaders(headers())).toEqual({});
    expect(retryAfterHeaders(headers({ 'retry-after': 'soon' }), 2)).toEqual({ 'retry-after': '2', 'retry-after-ms': '2000' });
  });
});

describe('failureFromStatus', () => {
  it.each([
    [400, 'invalid_value', 400],
    [422, 'invalid_value', 400],
    [413, 'request_too_large', 413],
    [401, 'upstream_error', 502],
    [403, 'upstream_error', 502],
    [404, 'upstream_error', 502],
    [405, 'upstream_error', 502],
    [408, 'upstream_timeout', 504],
    [429, 'engine_unavailable', 503],
    [500, 'upstream_error', 502],
    [502, 'upstream_error', 502],
    [503, 'engine_unavailable', 503],
    [504, 'upstream_timeout', 504],
  ])('should map upstream %i to %s (%i)', (status, code, ourStatus) => {
    expect(failureFromStatus(status, headers(), 'why')).toMatchObject({ code, status: ourStatus });
  });

  it('should keep the upstream message, flattened and clipped, except for credential failures', () => {
    expect(failureFromStatus(400, headers(), 'bad\n  value').message).toBe('The model server rejected the request: bad value');
    expect(failureFromStatus(500, headers(), 'x'.repeat(600)).message).toHaveLength('The model server failed (HTTP 500): '.length + 501);
    expect(failureFromStatus(401, headers(), 'Incorrect API key sk-123').message).not.toContain('sk-123');
  });

  it('should always give 429 and 503 a retry-after, and pass other ones through', () => {
    expect(failureFromStatus(429, headers(), undefined).headers).toEqual({ 'retry-after': '1', 'retry-after-ms': '1000' });
    expect(failureFromStatus(500, headers({ 'retry-after': '3' }), undefined).headers).toEqual({ 'retry-after': '3', 'retry-after-ms': '3000' });
    expect(failureFromStatus(500, headers(), undefined).headers).toEqual({});
  });
});

describe('failureFromNetwork', () => {
  it('should find the code in the cause chain', () => {
    const error = new TypeError('fetch failed', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) });
    expect(networkErrorCode(error)).toBe('ECONNREFUSED');
    expect(failureFromNetwork(error, false)).toMatchObject({ code: 'engine_unavailable', status: 503, message: 'The model server is unreachable (ECONNREFUSED).' });
    expect(failureFromNetwork(new Error('other'), true)).toMatchObject({ code: 'upstream_error', status: 502, message: 'The connection to the model server broke during the answer.' });
  });
});
