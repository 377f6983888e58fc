import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfigFile, resolveConfig } from './config.js';
import { defaultServerConfig } from './config-schema.js';

let directory: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'quantum-chat-config-'));
});
afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

function writeJson(name: string, value: unknown): string {
  const path = join(directory, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}

function loadError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('should use the embedded defaults when no file is named or present', () => {
    const { config, source } = loadConfig({ cwd: directory, env: {} });
    expect(source).toBeUndefined();
    expect(config).toEqual(defaultServerConfig);
    expect(config).toMatchObject({ host: '127.0.0.1', port: 8080, dataDir: '.data', shutdownGraceMs: 10_000, models: {} });
  });

  it('should read ./quantum-chat.config.json from the working directory', () => {
    const path = writeJson('quantum-chat.config.json', { port: 9000, ownedBy: 'acme' });
    const { config, source } = loadConfig({ cwd: directory, env: {} });
    expect(source).toBe(path);
    expect(config.port).toBe(9000);
    expect(config.ownedBy).toBe('acme');
  });

  it('should prefer --config over QUANTUM_CHAT_CONFIG over the working-directory file', () => {
    writeJson('quantum-chat.config.json', { port: 1 });
    writeJson('from-env.json', { port: 2 });
    writeJson('from-flag.json', { port: 3 });
    expect(loadConfig({ cwd: directory, env: { QUANTUM_CHAT_CONFIG: 'from-env.json' } }).config.port).toBe(2);
    expect(loadConfig({ cwd: directory, configPath: 'from-flag.json', env: { QUANTUM_CHAT_CONFIG: 'from-env.json' } }).config.port).toBe(3);
  });

  it('should let HOST, PORT and LOG_LEVEL override the file', () => {
    writeJson('quantum-chat.config.json', { host: '0.0.0.0', port: 9000, logLevel: 'debug' });
    const { config } = loadConfig({ cwd: directory, env: { HOST: '127.0.0.2', PORT: '0', LOG_LEVEL: 'warn' } });
    expect(config).toMatchObject({ host: '127.0.0.2', port: 0, logLevel: 'warn' });
  });

  it('should name the file when a named file is missing', () => {
    const error = loadError(() => loadConfig({ cwd: directory, configPath: 'nope.json', env: {} }));
    expect(error.message).toContain(join(directory, 'nope.json'));
    expect(error.message).toContain('--config');
    expect(error.message).toContain('file not found');
  });

  it('should report invalid JSON with the file name', () => {
    const path = writeJson('broken.json', '{ "port": ');
    const error = loadError(() => loadConfig({ cwd: directory, configPath: path, env: {} }));
    expect(error.message).toMatch(/^The config file .*broken\.json is not valid JSON/);
  });

  it('should reject a bad PORT from the environment', () => {
    expect(loadError(() => loadConfig({ cwd: directory, env: { PORT: 'http' } })).message).toContain('PORT must be an integer');
    expect(loadError(() => loadConfig({ cwd: directory, env: { PORT: '70000' } })).message).toContain('PORT must be an integer');
    expect(loadError(() => loadConfig({ cwd: directory, env: { LOG_LEVEL: 'loud' } })).message).toContain('LOG_LEVEL must be one of');
  });
});

describe('parseConfigFile', () => {
  it('should accept a full config with reference and upstream models', () => {
    const file = parseConfigFile({
      host: '127.0.0.1',
      port: 8080,
      ownedBy: 'quantum',
      dataDir: '/var/lib/quantum-chat',
      keepAliveIntervalMs: 15_000,
      shutdownGraceMs: 5_000,
      signingSecrets: ['a-secret-of-at-least-16-chars'],
      reference: { firstTokenDelayMs: 200, tokensPerSecond: 30 },
      models: {
        'quantum-lite': { engine: 'reference' },
        'quantum-flash': { engine: 'upstream', baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2', reasoning: 'drop', idleTimeoutMs: 30_000 },
      },
    });
    expect(file.models?.['quantum-flash']).toMatchObject({ engine: 'upstream', model: 'llama3.2' });
  });

  it('should name every field at fault, the JavaScript way', () => {
    const error = loadError(() =>
      parseConfigFile(
        {
          port: 'eighty',
          shutdownGraceMs: -1,
          colour: 'blue',
          reference: { tokensPerSecond: 'fast' },
          models: {
            'quantum-flash': { engine: 'upstream', baseUrl: 'not a url' },
            'quantum-pro': { engine: 'magic' },
            'gpt 9': { engine: 'reference' },
            'quantum-lite': { engine: 'reference', ownedBy: 'me' },
          },
        },
        'test.json',
      ),
    );
    const message = error.message;
    expect(message).toMatch(/^Invalid config in test\.json:/);
    expect(message).toContain('  - port: ');
    expect(message).toContain('  - shutdownGraceMs: ');
    expect(message).toContain('colour');
    expect(message).toContain('  - reference.tokensPerSecond: ');
    expect(message).toContain('  - models["quantum-flash"].baseUrl: expected an http(s) URL');
    expect(message).toContain('  - models["quantum-flash"].model: required');
    expect(message).toContain('  - models["quantum-pro"].engine: ');
    expect(message).toContain('  - models["gpt 9"]: a model id is 1 to 128 letters, digits and . _ : / - starting with a letter or digit');
    expect(message).toContain('  - models["quantum-lite"].ownedBy: only a model added beside quantum-lite, quantum-flash, quantum-reasoner, quantum-pro may set ownedBy');
  });

  it('should accept models added beside the four, with their owner, plan and pass-through', () => {
    const file = parseConfigFile({
      models: {
        'meta-llama/Llama-3.1-8B': { engine: 'upstream', baseUrl: 'http://127.0.0.1:8000/v1', model: 'meta-llama/Llama-3.1-8B', passThrough: 'all', ownedBy: 'meta' },
        'big-one': { engine: 'reference', requiresPlan: 'elite' },
        'open-one': { engine: 'reference', requiresPlan: null },
      },
    });
    expect(file.models?.['big-one']).toEqual({ engine: 'reference', requiresPlan: 'elite' });
    expect(() => parseConfigFile({ models: { x: { engine: 'reference', requiresPlan: 'free' } } })).toThrow(ConfigError);
    expect(() => parseConfigFile({ models: { x: { engine: 'upstream', baseUrl: 'http://127.0.0.1:8000/v1', model: 'm', passThrough: 'some' } } })).toThrow(ConfigError);
  });

  it('should take pass-through as an allow-list of field names, refusing anything else with the field named', () => {
    const upstream = (passThrough: unknown) => ({ models: { x: { engine: 'upstream', baseUrl: 'http://127.0.0.1:8000/v1', model: 'm', passThrough } } });
    const file = parseConfigFile(upstream(['top_k', 'min_p', 'chat_template_kwargs']));
    expect(file.models?.x).toMatchObject({ passThrough: ['top_k', 'min_p', 'chat_template_kwargs'] });
    for (const wrong of [[''], [42], ['top_k', 'top_k'], ['model'], Array.from({ length: 65 }, (_, index) => `f${index}`)]) {
      expect(() => parseConfigFile(upstream(wrong))).toThrow(/models\.x\.passThrough/);
    }
  });

  it('should accept a local GGUF model and refuse bad settings, naming each field', () => {
    const file = parseConfigFile({
      models: {
        'quantum-flash': { engine: 'llama', file: './models/qwen.gguf', contextSize: 4096, gpuLayers: 'auto', parallel: 2, maxQueue: 8, threads: 4 },
        'local-thinker': { engine: 'llama', file: 'hf:someone/thinker-GGUF/thinker-q4_k_m.gguf', gpuLayers: 0, reasoning: true, ownedBy: 'someone' },
      },
    });
    expect(file.models?.['quantum-flash']).toMatchObject({ engine: 'llama', parallel: 2 });
    let message = '';
    try {
      parseConfigFile({ models: { 'quantum-pro': { engine: 'llama', contextSize: 10, gpuLayers: 'some', parallel: 0 } } });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('models["quantum-pro"].file: required');
    expect(message).toContain('models["quantum-pro"].contextSize');
    expect(message).toContain('models["quantum-pro"].gpuLayers');
    expect(message).toContain('models["quantum-pro"].parallel');
  });

  it('should accept an upstream model with several deployments, and refuse mixing both forms', () => {
    const file = parseConfigFile({
      models: {
        'quantum-flash': {
          engine: 'upstream',
          deployments: [
            { baseUrl: 'http://10.0.0.7:8000/v1', model: 'Qwen/Qwen3-8B', weight: 2, maxConcurrency: 64 },
            { baseUrl: 'http://10.0.0.8:8000/v1', model: 'Qwen/Qwen3-8B', apiKeyEnv: 'VLLM_KEY' },
          ],
        },
      },
    });
    expect(file.models?.['quantum-flash']).toMatchObject({ deployments: [{ weight: 2 }, { apiKeyEnv: 'VLLM_KEY' }] });
    const mixed = loadError(() =>
      parseConfigFile({ models: { 'quantum-flash': { engine: 'upstream', baseUrl: 'http://10.0.0.7:8000/v1', deployments: [{ baseUrl: 'nope', model: 'm', weight: 0 }] } } }),
    );
    expect(mixed.message).toContain('models["quantum-flash"].baseUrl: give deployments or baseUrl/model/apiKeyEnv/api, not both');
    expect(mixed.message).toContain('models["quantum-flash"].deployments[0].baseUrl: expected an http(s) URL');
    expect(mixed.message).toContain('models["quantum-flash"].deployments[0].weight: ');
    expect(() => parseConfigFile({ models: { 'quantum-flash': { engine: 'upstream', deployments: [] } } })).toThrow(ConfigError);
  });

  it("should accept api 'responses' on an upstream model and on each deployment, and refuse another API", () => {
    const single = parseConfigFile({ models: { 'quantum-flash': { engine: 'upstream', baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2', api: 'responses' } } });
    expect(single.models?.['quantum-flash']).toMatchObject({ api: 'responses' });
    const several = parseConfigFile({
      models: { 'quantum-flash': { engine: 'upstream', deployments: [{ baseUrl: 'http://10.0.0.7:8000/v1', model: 'Qwen/Qwen3-8B', api: 'responses' }, { baseUrl: 'http://10.0.0.8:8000/v1', model: 'Qwen/Qwen3-8B', api: 'chat' }] } },
    });
    expect(several.models?.['quantum-flash']).toMatchObject({ deployments: [{ api: 'responses' }, { api: 'chat' }] });
    const wrong = loadError(() => parseConfigFile({ models: { 'quantum-flash': { engine: 'upstream', baseUrl: 'http://127.0.0.1:11434/v1', model: 'm', api: 'completions' } } }));
    expect(wrong.message).toContain('models["quantum-flash"].api');
  });

  it('should accept an upstream model\'s limits, and refuse an unknown or too small one', () => {
    const limits = { maxResponseBytes: 8_388_608, maxErrorBodyBytes: 4096, maxEventLength: 1_048_576, maxToolArgumentsLength: 262_144 };
    const file = parseConfigFile({ models: { 'quantum-flash': { engine: 'upstream', baseUrl: 'http://10.0.0.7:8000/v1', model: 'm', limits } } });
    expect(file.models?.['quantum-flash']).toMatchObject({ limits });
    const wrong = loadError(() =>
      parseConfigFile({ models: { 'quantum-flash': { engine: 'upstream', baseUrl: 'http://10.0.0.7:8000/v1', model: 'm', limits: { maxResponseBytes: 10, maxBytes: 1 } } } }),
    );
    expect(wrong.message).toContain('models["quantum-flash"].limits');
  });

  it('should refuse an apiKeyEnv that is not a variable name', () => {
    const error = loadError(() =>
      parseConfigFile({ models: { 'quantum-pro': { engine: 'upstream', baseUrl: 'https://api.example.com/v1', model: 'm', apiKeyEnv: 'sk-123 secret' } } }),
    );
    expect(error.message).toContain('models["quantum-pro"].apiKeyEnv: expected an environment variable name');
  });
});

describe('quantum-chat.config.example.json', () => {
  it('should be a valid config', () => {
    const example = JSON.parse(readFileSync(new URL('../quantum-chat.config.example.json', import.meta.url), 'utf8')) as unknown;
    const file = parseConfigFile(example, 'the example');
    expect(Object.keys(file.models ?? {})).toEqual(['quantum-lite', 'quantum-flash', 'quantum-reasoner', 'quantum-pro', 'qwen3-8b']);
  });
});

describe('resolveConfig', () => {
  it('should fill defaults and keep what the file sets', () => {
    const config = resolveConfig({ shutdownGraceMs: 300, reference: { tokensPerSecond: 20 } });
    expect(config).toEqual({ ...defaultServerConfig, shutdownGraceMs: 300, reference: { tokensPerSecond: 20 } });
  });

  it('should take the store from DATABASE_URL and QUANTUM_CHAT_DATA_DIR over the file', () => {
    const file = { dataDir: 'from-file', databaseUrl: 'postgres://file@127.0.0.1/db' };
    expect(resolveConfig(file, {})).toMatchObject({ dataDir: 'from-file', databaseUrl: 'postgres://file@127.0.0.1/db' });
    expect(resolveConfig(file, { DATABASE_URL: 'postgresql://env@127.0.0.1/db', QUANTUM_CHAT_DATA_DIR: '/var/lib/qc' })).toMatchObject({
      dataDir: '/var/lib/qc',
      databaseUrl: 'postgresql://env@127.0.0.1/db',
    });
    expect(() => resolveConfig({}, { DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL must be a postgres:\/\//);
    expect(() => parseConfigFile({ databaseUrl: 'http://x' })).toThrow(/databaseUrl: expected a postgres:\/\/ or postgresql:\/\/ URL/);
  });

  it('should ignore empty environment values', () => {
    expect(resolveConfig({ port: 9000 }, { PORT: '', HOST: '' })).toMatchObject({ port: 9000, host: '127.0.0.1' });
  });
});

describe('requireSignatures', () => {
  const secrets = { signingSecrets: ['whsec_0123456789abcdef'] };
  it('should come from the file or QUANTUM_CHAT_REQUIRE_SIGNATURES, the environment winning', () => {
    expect(resolveConfig(secrets).requireSignatures).toBe(false);
    expect(resolveConfig({ ...secrets, requireSignatures: true }).requireSignatures).toBe(true);
    expect(resolveConfig({ ...secrets, requireSignatures: true }, { QUANTUM_CHAT_REQUIRE_SIGNATURES: 'false' }).requireSignatures).toBe(false);
    expect(resolveConfig(secrets, { QUANTUM_CHAT_REQUIRE_SIGNATURES: '1' }).requireSignatures).toBe(true);
    expect(() => resolveConfig(secrets, { QUANTUM_CHAT_REQUIRE_SIGNATURES: 'yes' })).toThrow(ConfigError);
  });

  it('should refuse to require signatures without a secret to check them with', () => {
    expect(() => resolveConfig({ requireSignatures: true })).toThrow(/requireSignatures needs signingSecrets/u);
  });
});

describe('requestTimeoutMs', () => {
  it('should be 30 s by default, come from the file or QUANTUM_CHAT_REQUEST_TIMEOUT_MS (the environment winning), 0 turning it off', () => {
    expect(resolveConfig({}).requestTimeoutMs).toBe(30_000);
    expect(resolveConfig(parseConfigFile({ requestTimeoutMs: 5000 })).requestTimeoutMs).toBe(5000);
    expect(resolveConfig(parseConfigFile({ requestTimeoutMs: 5000 }), { QUANTUM_CHAT_REQUEST_TIMEOUT_MS: '12000' }).requestTimeoutMs).toBe(12_000);
    expect(resolveConfig({}, { QUANTUM_CHAT_REQUEST_TIMEOUT_MS: '0' }).requestTimeoutMs).toBe(0);
    expect(() => resolveConfig({}, { QUANTUM_CHAT_REQUEST_TIMEOUT_MS: '30s' })).toThrow(/QUANTUM_CHAT_REQUEST_TIMEOUT_MS must be a whole number of milliseconds/u);
    expect(() => parseConfigFile({ requestTimeoutMs: -1 })).toThrow(/requestTimeoutMs/u);
  });
});

describe('responses.retentionDays', () => {
  it('should be 30 days by default, come from the file or QUANTUM_CHAT_RESPONSES_RETENTION_DAYS (the environment winning)', () => {
    expect(resolveConfig({}).responses).toEqual({ retentionDays: 30 });
    expect(resolveConfig(parseConfigFile({ responses: { retentionDays: 7 } })).responses.retentionDays).toBe(7);
    expect(resolveConfig(parseConfigFile({ responses: { retentionDays: 7 } }), { QUANTUM_CHAT_RESPONSES_RETENTION_DAYS: '90' }).responses.retentionDays).toBe(90);
    expect(() => resolveConfig({}, { QUANTUM_CHAT_RESPONSES_RETENTION_DAYS: '0' })).toThrow(/QUANTUM_CHAT_RESPONSES_RETENTION_DAYS must be a whole number of days/u);
    expect(() => resolveConfig({}, { QUANTUM_CHAT_RESPONSES_RETENTION_DAYS: '30d' })).toThrow(/QUANTUM_CHAT_RESPONSES_RETENTION_DAYS/u);
    expect(() => parseConfigFile({ responses: { retentionDays: 0 } })).toThrow(/responses\.retentionDays/u);
    expect(() => parseConfigFile({ responses: { keepDays: 3 } })).toThrow(/keepDays/u);
  });
});

describe('admin tokens', () => {
  const token = 'qc-admin-0123456789abcdef0123';
  it('should be off by default, and take adminToken, adminTokens and QUANTUM_CHAT_ADMIN_TOKEN (which wins over adminToken)', () => {
    expect(resolveConfig({}, {}).adminTokens).toEqual([]);
    expect(resolveConfig(parseConfigFile({ adminToken: token }), {}).adminTokens).toEqual([{ id: 'default', token }]);
    const file = parseConfigFile({ adminToken: token, adminTokens: [{ id: 'ops', token: `${token}-ops` }] });
    expect(resolveConfig(file, { QUANTUM_CHAT_ADMIN_TOKEN: `${token}-env` }).adminTokens).toEqual([
      { id: 'ops', token: `${token}-ops` },
      { id: 'default', token: `${token}-env` },
    ]);
  });

  it('should refuse short tokens, bad or repeated ids, and an id the single token takes', () => {
    expect(loadError(() => parseConfigFile({ adminToken: 'short' })).message).toMatch(/adminToken: an admin token needs at least 24 characters/);
    expect(loadError(() => parseConfigFile({ adminTokens: [{ id: 'a b', token }] })).message).toMatch(/adminTokens\[0\]\.id/);
    expect(loadError(() => parseConfigFile({ adminTokens: [{ id: 'ops', token }, { id: 'ops', token: `${token}x` }] })).message).toMatch(/adminTokens\[1\]\.id: the id 'ops' is used twice/);
    expect(loadError(() => resolveConfig({}, { QUANTUM_CHAT_ADMIN_TOKEN: 'short' })).message).toMatch(/QUANTUM_CHAT_ADMIN_TOKEN: an admin token needs at least 24 characters/);
    expect(loadError(() => resolveConfig(parseConfigFile({ adminToken: token, adminTokens: [{ id: 'default', token: `${token}x` }] }), {})).message).toMatch(/'default'/);
  });
});
