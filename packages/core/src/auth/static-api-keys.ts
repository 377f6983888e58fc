import { QuantumChatError } from '../errors/quantum-chat-error.js';
import type { Plan } from '../schemas/model.js';
import type { AccessControl, Principal } from './access-control.js';
import { defaultApiKeyPrefixes, parseApiKey, type ApiKeyPrefixes } from './parse-api-key.js';

/** One key of a static list, with its organisation and plan. */
export interface StaticApiKey {
  key: string;
  /** `default` unless given. */
  organisationId?: string;
  /** The `plan` option's, unless given. */
  plan?: Plan;
}

export interface StaticApiKeysOptions {
  /** The plan of keys that do not name one; `elite` (every model) by default. */
  plan?: Plan;
  /** The prefixes the handler is configured with (`apiKeyPrefixes`), if not the default ones. */
  prefixes?: ApiKeyPrefixes;
}

/**
 * Access control by a fixed list of keys: those keys are admitted, any other is a 401
 * `invalid_api_key`. For examples, tests and small deployments; for keys you can create,
 * revoke and limit, use `createAccessControl` from `@quantum-chat/access-control`. Each key is
 * checked when the list is made, so a missing environment variable or a typo stops the start,
 * not the first request. No limits are applied.
 *
 * @example
 * const accessControl = staticApiKeys([process.env.QUANTUM_CHAT_API_KEY!]);
 * app.use('/v1', createExpressRouter({ engine: createReferenceEngine(), accessControl }));
 */
export function staticApiKeys(keys: Iterable<string | StaticApiKey>, options: StaticApiKeysOptions = {}): AccessControl {
  const prefixes = options.prefixes ?? defaultApiKeyPrefixes;
  const principals = new Map<string, Principal>();
  let index = 0;
  for (const entry of keys) {
    const key = typeof entry === 'string' ? entry : entry?.key;
    if (typeof key !== 'string' || key === '') {
      throw new TypeError(`staticApiKeys: the key at index ${index} is ${key === '' ? 'empty' : String(key)} (is its environment variable set?).`);
    }
    const parsed = parseApiKey(key, prefixes);
    if (parsed === undefined) {
      throw new TypeError(
        `staticApiKeys: the key at index ${index} is not a well-formed API key (${prefixes.live}… or ${prefixes.test}… with its checksum); make one with generateApiKey('live').`,
      );
    }
    const details: Partial<StaticApiKey> = typeof entry === 'string' ? {} : entry;
    principals.set(key, {
      keyId: parsed.display,
      organisationId: details.organisationId ?? 'default',
      plan: details.plan ?? options.plan ?? 'elite',
      kind: parsed.kind,
    });
    index++;
  }
  if (principals.size === 0) throw new TypeError('staticApiKeys: give at least one key; an empty list would refuse every request.');
  return {
    authenticate: async (key) => {
      const principal = principals.get(key.key);
      if (principal === undefined) throw new QuantumChatError('invalid_api_key', `Incorrect API key provided: ${key.display}. No such key exists.`);
      return principal;
    },
  };
}

/**
 * INSECURE: admits every well-formed key (right prefix and checksum) — anyone can make one —
 * as organisation `default` on `plan` (`elite` by default). For tests and local demos only;
 * never for a server others can reach. The name is the warning.
 *
 * @example
 * createChatHandler({ engine, accessControl: insecureAcceptAnyApiKey() }); // a test
 */
export function insecureAcceptAnyApiKey(options: { plan?: Plan } = {}): AccessControl {
  const plan = options.plan ?? 'elite';
  return {
    authenticate: async (key) => ({ keyId: key.display, organisationId: 'default', plan, kind: key.kind }),
  };
}

/**
 * @deprecated Renamed `insecureAcceptAnyApiKey`, which says what it does: any well-formed key
 * is admitted. Kept so that existing code keeps compiling; it is no longer a default.
 */
export function createFormatOnlyAccessControl(options: { plan?: Plan } = {}): AccessControl {
  return insecureAcceptAnyApiKey(options);
}
