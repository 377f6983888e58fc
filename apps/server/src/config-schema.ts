import { builtinModels } from '@quantum-chat/core';
import { chatCompletionRequestSchema } from '@quantum-chat/core/schemas';
import * as z from 'zod';
import { defaultAdminTokenFailuresPerMinute } from './admin/admin-token-throttle.js';

const milliseconds = z.int().min(0);
const positiveMilliseconds = z.int().min(1);

/** What a model added beside the four of the spec may say of itself (decisions §9). */
const addedModelFields = {
  /** Its `owned_by` in the model list; the server's `ownedBy` when absent. */
  ownedBy: z.string().min(1).max(256).optional(),
  /** `"elite"` when only organisations on that plan may use it; `null` (the default) for every plan. */
  requiresPlan: z.enum(['elite']).nullable().optional(),
};

/** A model answered by the deterministic reference engine (the default for every model). */
const referenceModelConfigSchema = z.strictObject({
  engine: z.literal('reference'),
  ...addedModelFields,
});

const upstreamBaseUrl = z.url({
  protocol: /^https?$/,
  error: (issue) => (issue.input === undefined ? 'required' : 'expected an http(s) URL such as http://127.0.0.1:11434/v1'),
});
const apiKeyEnv = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name');
/** The API a server is sent requests on: `chat` (`/chat/completions`, the default) or `responses` (`/responses`: vLLM, Ollama). */
const upstreamApi = z.enum(['chat', 'responses']);

/** One server (replica) of an upstream model. */
const upstreamDeploymentConfigSchema = z.strictObject({
  baseUrl: upstreamBaseUrl,
  model: z.string().min(1),
  apiKeyEnv: apiKeyEnv.optional(),
  /** Its share of the load relative to the others (1 by default). */
  weight: z.number().positive().max(1000).optional(),
  /** The most requests it serves at once (unlimited by default). */
  maxConcurrency: z.int().min(1).optional(),
  api: upstreamApi.optional(),
});

/** A model answered by an OpenAI-compatible server (or several replicas): Ollama, vLLM, llama.cpp, OpenAI, DeepSeek. */
/** Fields the request schema knows are read by us, never passed through: listing one is a mistake. */
const knownRequestFieldNames = new Set(Object.keys(chatCompletionRequestSchema.shape));

/** `"all"`, `"none"`, or the names of the unknown request fields an upstream model receives. */
const passThroughConfigSchema = z.union([
  z.enum(['all', 'none']),
  z
    .array(
      z
        .string()
        .regex(/^[A-Za-z_][\w.-]{0,63}$/, 'expected a request field name')
        .refine((name) => !knownRequestFieldNames.has(name), { error: 'a field the request schema knows is never passed through' }),
    )
    .max(64)
    .refine((names) => new Set(names).size === names.length, { error: 'a field is listed twice' }),
], { error: 'expected "all", "none" or a list of at most 64 request field names' });

const upstreamModelConfigSchema = z
  .strictObject({
    engine: z.literal('upstream'),
    /** Base URL up to and including the version segment, e.g. `http://127.0.0.1:11434/v1`. */
    baseUrl: upstreamBaseUrl.optional(),
    /** The model name on the upstream server, e.g. `llama3.2`. */
    model: z.string().min(1).optional(),
    /** Name of the environment variable that holds the upstream API key (never the key itself). */
    apiKeyEnv: apiKeyEnv.optional(),
    /** The API the server of `baseUrl` is sent requests on; with `deployments`, each says its own. */
    api: upstreamApi.optional(),
    /** Several replicas instead of `baseUrl`/`model`/`apiKeyEnv`/`api`: the least busy healthy one answers. */
    deployments: z.array(upstreamDeploymentConfigSchema).min(1).max(64).optional(),
    connectTimeoutMs: positiveMilliseconds.optional(),
    firstTokenTimeoutMs: positiveMilliseconds.optional(),
    idleTimeoutMs: positiveMilliseconds.optional(),
    /** For a client that does not stream: time to the upstream's whole JSON answer. */
    answerTimeoutMs: positiveMilliseconds.optional(),
    reasoning: z.enum(['auto', 'keep', 'drop']).optional(),
    /**
     * The unknown top-level request fields forwarded to the upstream: a list of names
     * (`["top_k", "min_p", "chat_template_kwargs"]`), or `"all"` but the built-in deny-list.
     */
    passThrough: passThroughConfigSchema.optional(),
    /** How much of an answer is read (decisions §8); past a limit the answer is an upstream fault (502). */
    limits: z
      .strictObject({
        /** Decoded bytes of one answer (after gzip/deflate/br); default 33554432 (32 MiB). */
        maxResponseBytes: z.int().min(1024).optional(),
        /** Bytes of an error answer read for its message; default 65536. */
        maxErrorBodyBytes: z.int().min(1).optional(),
        /** Characters of one server-sent event or line; default 4194304. */
        maxEventLength: z.int().min(1024).optional(),
        /** Characters of one tool call's arguments; default 4194304. */
        maxToolArgumentsLength: z.int().min(1).optional(),
      })
      .optional(),
    ...addedModelFields,
  })
  .superRefine(
    (model, context) => {
      if (model.deployments !== undefined) {
        for (const field of ['baseUrl', 'model', 'apiKeyEnv', 'api'] as const) {
          if (model[field] !== undefined) context.addIssue({ code: 'custom', path: [field], message: 'give deployments or baseUrl/model/apiKeyEnv/api, not both' });
        }
        return;
      }
      // Reported even when another field is wrong, so every problem shows at once.
      if (model.baseUrl === undefined) context.addIssue({ code: 'custom', path: ['baseUrl'], message: 'required' });
      if (model.model === undefined) context.addIssue({ code: 'custom', path: ['model'], message: 'required' });
    },
    { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
  );

/** A model answered in-process from a GGUF file, on llama.cpp (needs node-llama-cpp installed beside the server). */
const llamaModelConfigSchema = z.strictObject({
  engine: z.literal('llama'),
  /** A `.gguf` path (relative to the working directory), or `hf:<user>/<repo>/<file>.gguf`, downloaded once into the data directory. */
  file: z.string().min(1),
  /** Tokens of context per request; default: the model's trained length, at most 4096. */
  contextSize: z.int().min(64).max(1_048_576).optional(),
  /** Layers on the GPU: `"auto"` (default; none without a GPU), `"max"`, or a count (0: CPU only). */
  gpuLayers: z.union([z.int().min(0), z.enum(['auto', 'max'])]).optional(),
  /** Requests answered at once (context sequences); default 1. */
  parallel: z.int().min(1).max(64).optional(),
  /** Requests that may wait beyond those; the rest get 503 overloaded. Default 16. */
  maxQueue: z.int().min(0).max(10_000).optional(),
  /** CPU threads llama.cpp uses; default: one per core that does math. */
  threads: z.int().min(1).max(512).optional(),
  /** For an added model: whether it shows its reasoning (a thinking model); the four keep the spec's. */
  reasoning: z.boolean().optional(),
  ...addedModelFields,
});

export const modelConfigSchema = z.discriminatedUnion('engine', [referenceModelConfigSchema, upstreamModelConfigSchema, llamaModelConfigSchema]);

const builtinModelIds = new Set(builtinModels.map((model) => model.id));
/** What an added model's id may be: what clients send as `model` (`llama-3.1-8b`, `meta-llama/Llama-3.1-8B`). */
const addedModelIdPattern = /^[A-Za-z0-9][\w.:/-]{0,127}$/;

/** An admin token: long enough that guessing it is hopeless. */
export const adminTokenSecret = z.string().min(24, 'an admin token needs at least 24 characters (openssl rand -hex 32 makes one)').max(512);

/** The token `GET /metrics` asks for: long enough that guessing it is hopeless. */
export const metricsTokenSecret = z.string().min(24, 'a metrics token needs at least 24 characters (openssl rand -hex 32 makes one)').max(512);

/** The config file as written: every field optional, unknown fields refused (they are typos). */
export const serverConfigFileSchema = z.strictObject({
  host: z.string().min(1).optional(),
  port: z.int().min(0).max(65_535).optional(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(),
  ownedBy: z.string().min(1).optional(),
  dataDir: z.string().min(1).optional(),
  /** The PostgreSQL store several hosts share (`postgres://…`); the `DATABASE_URL` environment variable wins. Without it: SQLite in `dataDir`. */
  databaseUrl: z.string().regex(/^postgres(ql)?:\/\//, 'expected a postgres:// or postgresql:// URL').optional(),
  store: z
    .strictObject({
      /** The most a key lookup waits on the store before 503 store_unavailable (cached keys keep working); default 1000. */
      timeoutMs: z.int().min(1).max(60_000).optional(),
      /** How often running requests' progress rows are written; default 500. */
      usageFlushIntervalMs: z.int().min(10).max(60_000).optional(),
      /**
       * "durable" (default): an answer is acknowledged only once its usage row is committed (group
       * commit). "buffered": settled rows wait for the next flush, and a crash loses them (for comparison only).
       */
      usageWrites: z.enum(['durable', 'buffered']).optional(),
      /** Durable writes: the most an answer waits for its usage row before it becomes 503 store_unavailable; default 3000. */
      usageCommitTimeoutMs: z.int().min(10).max(60_000).optional(),
      /** Running rows not written for this long belong to a dead instance and are settled from their last count; default 30000. */
      abandonedAfterMs: z.int().min(100).optional(),
    })
    .optional(),
  /** Shares rate limits between instances; the `REDIS_URL` environment variable wins. */
  redisUrl: z.string().regex(/^rediss?:\/\//, 'expected a redis:// or rediss:// URL').optional(),
  limits: z
    .strictObject({
      /** When Redis fails: false (default) limits per instance, true answers 503. */
      failClosed: z.boolean().optional(),
      /** The most a request waits on Redis, 1 to 100 ms (default 50). */
      redisTimeoutMs: z.int().min(1).max(100).optional(),
      /** Per-instance leases of the day's tokens (decisions §6): far fewer store calls, at a bounded cost in exactness across instances. Off by default. */
      dailyLeases: z.boolean().optional(),
    })
    .optional(),
  keepAliveIntervalMs: milliseconds.optional(),
  /** Resumable streams (decisions §4.7). */
  streams: z
    .strictObject({
      /** Every stream is resumable unless its request says `stream_options.resumable: false`; off by default. */
      resumableByDefault: z.boolean().optional(),
      /** How long a stream is kept after its end; 600 by default. */
      retentionSeconds: z.int().min(1).max(86_400).optional(),
      /** Runs without a reader per organisation (per instance) before the oldest is cancelled; 32 by default. */
      maxDetachedPerOrganisation: z.int().min(0).max(100_000).optional(),
      /** A resumable run's time limit from its start: past it, a run with no reader ends with `upstream_timeout`; 600 by default, 0: none. */
      runTimeoutSeconds: z.int().min(0).max(86_400).optional(),
      /** A follower on another instance ends with `stream_lost` once the producer's heartbeat lapsed this long; 10 by default. */
      heartbeatSeconds: z.int().min(1).max(600).optional(),
      /**
       * With `databaseUrl` and no Redis, the server takes it to run as several instances and
       * refuses resumable streams (a resume could reach an instance without the stream);
       * `true` says this instance is the only one.
       */
      singleInstance: z.boolean().optional(),
    })
    .optional(),
  /** The Responses API (decisions §10). */
  responses: z
    .strictObject({
      /** How long a stored response (`store: true`, the default) is kept; 30 days by default. `QUANTUM_CHAT_RESPONSES_RETENTION_DAYS` wins. */
      retentionDays: z.int().min(1).max(3650).optional(),
    })
    .optional(),
  /** Headers and body must arrive within it (408 `request_timeout`); 30 s by default, 0: none. `QUANTUM_CHAT_REQUEST_TIMEOUT_MS` wins. */
  requestTimeoutMs: milliseconds.optional(),
  /** `GET /metrics` in the Prometheus text format; on by default. */
  metrics: z.boolean().optional(),
  /** `GET /metrics` then needs `Authorization: Bearer <token>`; open without it. `QUANTUM_CHAT_METRICS_TOKEN` wins. */
  metricsToken: metricsTokenSecret.optional(),
  /** CORS for browsers on other origins; off unless set. */
  cors: z
    .strictObject({
      /** `"*"` for any origin, or the exact origins allowed (`https://app.example.com`). */
      origins: z.union([z.literal('*'), z.array(z.string().regex(/^https?:\/\/[^/?#\s]+$/, 'expected an origin such as https://app.example.com')).min(1)]),
      /** Allow cookies and credentials; not with `"*"`. */
      credentials: z.boolean().optional(),
      /** How long a browser may cache a preflight answer. */
      maxAgeSeconds: z.int().min(0).max(86_400).optional(),
    })
    .refine((cors) => !(cors.credentials === true && cors.origins === '*'), { message: 'credentials need explicit origins, not "*"', path: ['credentials'] })
    .optional(),
  /** Load shedding: new requests get 503 `overloaded` past these thresholds; `false` turns it off. */
  overload: z
    .union([
      z.literal(false),
      z.strictObject({
        maxEventLoopDelayMs: positiveMilliseconds.optional(),
        maxHeapUsedBytes: z.int().min(1).optional(),
        maxRssBytes: z.int().min(1).optional(),
        /** How often event-loop delay and memory are sampled. */
        sampleIntervalMs: positiveMilliseconds.optional(),
        retryAfterSeconds: z.int().min(1).max(3600).optional(),
      }),
    ])
    .optional(),
  shutdownGraceMs: milliseconds.optional(),
  signingSecrets: z.array(z.string().min(16, 'a signing secret needs at least 16 characters')).optional(),
  /** Every chat request must carry a valid `X-Service-Signature`; `QUANTUM_CHAT_REQUIRE_SIGNATURES` wins. */
  requireSignatures: z.boolean().optional(),
  /** Turns the admin API on (`/admin/v1`): its one token. `QUANTUM_CHAT_ADMIN_TOKEN` wins over it. Its id in the audit log is `default`. */
  adminToken: adminTokenSecret.optional(),
  /** Admin tokens with ids of their own (the audit log names who acted by the id: `admin:<id>`). */
  adminTokens: z
    .array(z.strictObject({ id: z.string().regex(/^[A-Za-z0-9][\w.-]{0,63}$/, 'expected 1 to 64 letters, digits, dots, dashes and underscores'), token: adminTokenSecret }))
    .max(64)
    .superRefine((tokens, context) => {
      const seen = new Set<string>();
      tokens.forEach((token, index) => {
        if (seen.has(token.id)) context.addIssue({ code: 'custom', path: [index, 'id'], message: `the id '${token.id}' is used twice` });
        seen.add(token.id);
      });
    })
    .optional(),
  /** Wrong admin tokens a client address may present within a minute before it waits out that minute (429); 10 by default. */
  adminTokenFailuresPerMinute: z.int().min(1).max(1_000_000).optional(),
  reference: z
    .strictObject({
      firstTokenDelayMs: milliseconds.optional(),
      tokensPerSecond: z.number().min(0).optional(),
    })
    .optional(),
  models: z
    .record(z.string(), modelConfigSchema)
    .superRefine(
      (models, context) => {
        for (const [id, model] of Object.entries(models)) {
          if (!builtinModelIds.has(id)) {
            if (!addedModelIdPattern.test(id)) {
              context.addIssue({ code: 'custom', path: [id], message: 'a model id is 1 to 128 letters, digits and . _ : / - starting with a letter or digit' });
            }
            continue;
          }
          // The four keep what the spec says of them: one owner for all (`ownedBy` at the top), its plans.
          for (const field of ['ownedBy', 'requiresPlan'] as const) {
            if (typeof model === 'object' && model !== null && field in model) {
              context.addIssue({ code: 'custom', path: [id, field], message: `only a model added beside ${[...builtinModelIds].join(', ')} may set ${field}` });
            }
          }
        }
      },
      // Run even when a model's entry is invalid, so every problem is reported at once.
      { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
    )
    .optional(),
});

export type ServerConfigFile = z.infer<typeof serverConfigFileSchema>;
export type ModelConfig = z.infer<typeof modelConfigSchema>;
export type UpstreamModelConfig = z.infer<typeof upstreamModelConfigSchema>;
export type LlamaModelConfig = z.infer<typeof llamaModelConfigSchema>;

/** The resolved config: file, then environment, then defaults. */
export interface ServerConfig {
  host: string;
  port: number;
  logLevel: NonNullable<ServerConfigFile['logLevel']>;
  ownedBy?: string;
  dataDir: string;
  databaseUrl?: string;
  store: { timeoutMs?: number; usageFlushIntervalMs?: number; usageWrites?: 'durable' | 'buffered'; usageCommitTimeoutMs?: number; abandonedAfterMs?: number };
  redisUrl?: string;
  limits: { failClosed: boolean; redisTimeoutMs?: number; dailyLeases?: boolean };
  keepAliveIntervalMs?: number;
  streams: { resumableByDefault: boolean; retentionSeconds: number; maxDetachedPerOrganisation: number; runTimeoutSeconds: number; heartbeatSeconds: number; singleInstance: boolean };
  /** How long stored responses are kept. */
  responses: { retentionDays: number };
  requestTimeoutMs: number;
  metrics: boolean;
  /** The token `GET /metrics` needs (as a bearer token); none: it is open. */
  metricsToken?: string;
  cors?: CorsSettings;
  overload: OverloadSettings | false;
  shutdownGraceMs: number;
  signingSecrets: string[];
  requireSignatures: boolean;
  /** The admin API's tokens; none: the admin API is off (404). */
  adminTokens: { id: string; token: string }[];
  /** Wrong admin tokens a client address may present within a minute before it gets 429; 10 when absent. */
  adminTokenFailuresPerMinute?: number;
  reference: { firstTokenDelayMs?: number; tokensPerSecond?: number };
  /**
   * Every model the config names; built-in models not named use the reference engine. Ids other
   * than the four are added models, listed after the four in the config's order.
   */
  models: Record<string, ModelConfig>;
}

export interface CorsSettings {
  origins: '*' | string[];
  credentials: boolean;
  maxAgeSeconds: number;
}

export interface OverloadSettings {
  /** Mean event-loop delay over a sample interval past which requests are shed (default 1000 ms). */
  maxEventLoopDelayMs: number;
  /** Heap in use past which requests are shed; 90% of the heap limit by default. */
  maxHeapUsedBytes?: number;
  maxRssBytes?: number;
  sampleIntervalMs?: number;
  retryAfterSeconds: number;
}

/** The embedded defaults, used for whatever the file and environment leave out. */
export const defaultServerConfig: ServerConfig = {
  host: '127.0.0.1',
  port: 8080,
  logLevel: 'info',
  dataDir: '.data',
  store: {},
  limits: { failClosed: false },
  metrics: true,
  overload: { maxEventLoopDelayMs: 1000, retryAfterSeconds: 10 },
  requestTimeoutMs: 30_000,
  streams: { resumableByDefault: false, retentionSeconds: 600, maxDetachedPerOrganisation: 32, runTimeoutSeconds: 600, heartbeatSeconds: 10, singleInstance: false },
  responses: { retentionDays: 30 },
  shutdownGraceMs: 10_000,
  signingSecrets: [],
  requireSignatures: false,
  adminTokens: [],
  adminTokenFailuresPerMinute: defaultAdminTokenFailuresPerMinute,
  reference: {},
  models: {},
};
