/**
 * Which unknown top-level request fields an engine forwards to its model (decisions §2):
 * `'none'`, the names listed (an allow-list per deployment, e.g. `['top_k', 'min_p']`), or
 * `'all'` but those of `passThroughDeniedFields`.
 */
export type PassThroughPolicy = 'all' | 'none' | readonly string[];

/**
 * Fields never forwarded under `'all'`: each changes what the operator pays (priority tiers,
 * hosted tools, several candidates, generation past the end or to a minimum length, a token
 * limit under another name, scheduling priority, a model kept loaded), what the upstream keeps
 * of the tenant's conversation (`store`, prompt caches), or brings tools past our schema checks
 * (the legacy `functions`). An operator may still list one by name.
 */
export const passThroughDeniedFields: ReadonlySet<string> = new Set([
  // OpenAI: billed differently, or kept in the operator's account.
  'service_tier',
  'store',
  'prompt_cache_key',
  'prompt_cache_retention',
  'web_search_options',
  'audio',
  'modalities',
  'prediction',
  'background',
  // OpenAI's legacy function calling: tools without our checks.
  'functions',
  'function_call',
  // vLLM, SGLang, TGI, llama.cpp, Ollama: more candidates, longer or forced generations, priority.
  'best_of',
  'use_beam_search',
  'ignore_eos',
  'min_tokens',
  'min_new_tokens',
  'max_new_tokens',
  'n_predict',
  'num_predict',
  'prompt_logprobs',
  'priority',
  'logits_processors',
  'vllm_xargs',
  'kv_transfer_params',
  'id_slot',
  'keep_alive',
  'options',
]);

/** Whether `policy` forwards the unknown field `name`. */
export function passesThrough(policy: PassThroughPolicy | undefined, name: string): boolean {
  if (policy === undefined || policy === 'none') return false;
  if (policy === 'all') return !passThroughDeniedFields.has(name);
  return policy.includes(name);
}

/**
 * The unknown fields `policy` forwards, as sent (`undefined` when none is): the rest stay
 * ignored and named in `x-quantum-ignored-params`.
 */
export function selectPassedThrough(policy: PassThroughPolicy | undefined, fields: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> | undefined {
  if (fields === undefined || policy === undefined || policy === 'none') return undefined;
  let passed: Record<string, unknown> | undefined;
  for (const name of Object.keys(fields)) if (passesThrough(policy, name)) (passed ??= {})[name] = fields[name];
  return passed;
}
