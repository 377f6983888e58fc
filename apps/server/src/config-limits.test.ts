import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigFile, resolveConfig } from './config.js';

describe('resolveConfig (redisUrl and limits)', () => {
  it('should limit in memory and fail open by default', () => {
    expect(resolveConfig({})).toMatchObject({ redisUrl: undefined, limits: { failClosed: false } });
  });

  it('should take redisUrl from the file, REDIS_URL winning', () => {
    const file = parseConfigFile({ redisUrl: 'redis://file:6379', limits: { failClosed: true, redisTimeoutMs: 80 } });
    expect(resolveConfig(file)).toMatchObject({ redisUrl: 'redis://file:6379', limits: { failClosed: true, redisTimeoutMs: 80 } });
    expect(resolveConfig(file, { REDIS_URL: 'rediss://env:6380' }).redisUrl).toBe('rediss://env:6380');
  });

  it('should take daily leases from the file, off by default', () => {
    expect(resolveConfig({}).limits.dailyLeases).toBeUndefined();
    expect(resolveConfig(parseConfigFile({ limits: { dailyLeases: true } })).limits).toMatchObject({ failClosed: false, dailyLeases: true });
    expect(() => parseConfigFile({ limits: { dailyLeases: 'yes' } })).toThrow(/limits\.dailyLeases/);
  });

  it('should refuse a REDIS_URL that is not a redis URL', () => {
    expect(() => resolveConfig({}, { REDIS_URL: 'localhost:6379' })).toThrow(ConfigError);
  });

  it('should refuse a Redis timeout above 100 ms and unknown limit fields', () => {
    expect(() => parseConfigFile({ limits: { redisTimeoutMs: 250 } })).toThrow(/limits\.redisTimeoutMs/);
    expect(() => parseConfigFile({ limits: { failOpen: true } })).toThrow(ConfigError);
    expect(() => parseConfigFile({ redisUrl: 'http://x' })).toThrow(/redisUrl/);
  });
});
