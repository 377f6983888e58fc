/** One rule of the spec or the decisions that fixtures check. */
export interface Requirement {
  /** Where the rule is written: `spec §4.2` is docs/spec/service-spec.md, `decisions §4.3` is docs/spec/decisions.md. */
  spec: string;
  behavior: string;
  /** `server`: checked by server cases (`*.case.json`); `client`: by client streams (`*.expected.json`). */
  side: 'server' | 'client';
}

const server = (spec: string, behavior: string): Requirement => ({ spec, behavior, side: 'server' });
const client = (spec: string, behavior: string): Requirement => ({ spec, behavior, side: 'client' });

/**
 * Every rule the fixtures cover, by id. Pure data: `test/coverage.test.ts` fails when a rule
 * has no case or a case cites an id that is not here.
 */
export const requirements = {
  // Endpoints and routing
  'models.list': server('spec §2.2, §2.3, §4.2', 'GET /models lists the four models in spec order: id, object "model", created 0, one owned_by, requires_plan null or "elite".'),
  'models.list.anonymous': server('decisions §6', 'Without an Authorization header the model list is complete and carries no `available` field.'),
  'models.list.available': server('decisions §6', 'With a valid key each model carries `available`, false where the key\'s plan (or its own allowed models) may not use it.'),
  'models.list.invalid-key': server('decisions §6', 'A present but invalid key on GET /models is a 401, not an anonymous listing.'),
  'models.retrieve': server('decisions §1', 'GET /models/{id} returns that model object.'),
  'models.retrieve.unknown': server('decisions §1', 'GET /models/{id} for an unknown id is 404 model_not_found.'),
  'route.unknown-url': server('decisions §1', 'An unknown path is 404 unknown_url in the error envelope.'),
  'route.method-not-allowed': server('decisions §1', 'A wrong method is 405 method_not_allowed with an Allow header naming the allowed methods.'),
  'request-id.echo': server('decisions §1', 'A valid incoming x-request-id is echoed on the response.'),
  'request-id.generated': server('decisions §1', 'Every response carries x-request-id, generated when the request sent none.'),
  // Order of checks
  'order.route-before-body': server('decisions §1', 'Route and method are checked before the body is looked at.'),
  'order.body-before-auth': server('decisions §1', 'Body rules (size, type, JSON) answer before authentication.'),
  'order.auth-before-validation': server('decisions §1', 'Authentication (401) answers before validation (400).'),
  'order.validation-before-model': server('decisions §1', 'Validation (400) answers before the model lookup (404).'),
  'order.validation-before-plan': server('decisions §1', 'Validation (400) answers before the plan check (403).'),
  'order.model-before-plan': server('decisions §1', 'The model lookup (404) answers before the plan check (403).'),
  'order.plan-before-limits': server('decisions §1', 'The plan check (403) answers before the limits (429).'),
  'order.validation-before-limits': server('decisions §1', 'Validation (400) answers before the limits (429).'),
  // Requests
  'request.stream-default-false': server('decisions §1', 'A missing `stream` means a JSON answer.'),
  'request.null-as-absent': server('decisions §1', '`null` counts as absent for every optional field.'),
  'request.developer-role': server('decisions §2', 'The `developer` role is accepted as `system`.'),
  'request.text-parts': server('decisions §2', '`content` may be an array of `{type:"text", text}` parts.'),
  'request.accepted-fields': server('decisions §2', 'top_p, a stop list, seed, user, metadata, parallel_tool_calls, n = 1 and max_completion_tokens are accepted.'),
  'request.assistant-reasoning-accepted': server('decisions §2', 'An assistant message may carry reasoning_content or reasoning, and content null with tool_calls.'),
  'request.tool-result-turn': server('decisions §2', 'A tool message whose tool_call_id matches an earlier assistant tool call is accepted.'),
  'request.output-controls': server('decisions §2', 'response_format (json_schema), logprobs with top_logprobs, presence_penalty, frequency_penalty, logit_bias and reasoning_effort are accepted and not named as ignored.'),
  'request.ignored-params': server('decisions §2', 'Unknown top-level fields are ignored and named in x-quantum-ignored-params.'),
  'request.ignored-params-cut': server('decisions §2', 'x-quantum-ignored-params lists whole names within 1,000 characters, then a last element `...`.'),
  'request.content-type-parameters': server('decisions §2', 'application/json with parameters (`; charset=utf-8`) is JSON.'),
  // Validation
  'validation.invalid-json': server('decisions §5', 'A body that is not JSON is 400 invalid_json.'),
  'validation.missing-parameter': server('decisions §5, spec §4.1', 'A missing required field (model, messages) is 400 missing_required_parameter naming it.'),
  'validation.invalid-type': server('decisions §5', 'A field of the wrong JSON type (or a body that is not an object) is 400 invalid_type.'),
  'validation.param-path': server('decisions §2', '`param` names the offending field the JavaScript way: `messages[0].role`, `tools[0].function.parameters`.'),
  'validation.empty-messages': server('decisions §2', 'An empty messages array is 400 invalid_value.'),
  'validation.temperature-range': server('decisions §2, spec §8', 'temperature outside 0–2 is 400 invalid_value.'),
  'validation.max-tokens-range': server('decisions §2, spec §8', 'max_tokens outside 1–8192 is 400 invalid_value.'),
  'validation.max-tokens-alias-conflict': server('decisions §2', 'max_tokens and max_completion_tokens given with different values is 400 invalid_value.'),
  'validation.role': server('decisions §2', 'A role other than system, developer, user, assistant or tool is 400 invalid_value.'),
  'validation.orphan-tool-message': server('decisions §2', 'A tool message without a matching earlier assistant tool call is 400, naming its tool_call_id.'),
  'validation.tool-choice-unknown-tool': server('decisions §2', 'A tool_choice naming a tool not in `tools` is 400.'),
  'validation.tool-choice-required-without-tools': server('decisions §2', 'tool_choice "required" without tools is 400.'),
  'validation.tool-name-pattern': server('decisions §2', 'A function name must match ^[a-zA-Z0-9_-]{1,64}$.'),
  'validation.tool-name-unique': server('decisions §2', 'Two tools with the same function name are 400 invalid_value naming the repeat (`tools[2].function.name`).'),
  'validation.tool-schema-remote-ref': server('decisions §2', 'Tool parameters with a remote $ref are 400 invalid_tool_schema with `param` set.'),
  'validation.tool-schema-invalid': server('decisions §2', 'Tool parameters that are not a valid JSON Schema are 400 invalid_tool_schema.'),
  'validation.response-format-schema': server('decisions §2', 'A json_schema response format whose schema is not a valid JSON Schema is 400 invalid_value naming response_format.json_schema.schema.'),
  'validation.logprobs': server('decisions §2', 'top_logprobs is an integer from 0 to 20 and needs logprobs: true; otherwise 400 invalid_value naming it.'),
  'validation.output-control-ranges': server('decisions §2', 'Penalties outside −2–2 and a reasoning_effort other than low, medium or high are 400 invalid_value naming the field.'),
  'validation.stop-max-4': server('decisions §2', '`stop` holds at most 4 strings.'),
  'validation.n-unsupported': server('decisions §2', '`n` other than 1 is 400 unsupported_value.'),
  'validation.content-part-unsupported': server('decisions §2', 'A content part other than text is 400 unsupported_value.'),
  // Bodies
  'body.too-large': server('decisions §2', 'A body over the limit is 413 request_too_large.'),
  'body.limit-is-the-handlers': server('decisions §2', 'The body limit is the handler option, honoured by every host: a body over the default 1 MiB but under the handler limit is served.'),
  'body.unsupported-media-type': server('decisions §2', 'A content type other than JSON is 415 unsupported_media_type.'),
  'body.nesting-too-deep': server('decisions §2', 'Nesting deeper than 64 is 400 nesting_too_deep.'),
  'body.prototype-key': server('decisions §2', 'A `__proto__` key, or `constructor` holding `prototype`, at any depth is 400 invalid_json.'),
  'body.invalid-encoding': server('decisions §2', 'A body that is not valid UTF-8 is 400 invalid_encoding.'),
  // Keys, plans, signatures
  'auth.missing-key': server('spec §5, decisions §5', 'A chat request without a key is 401 missing_api_key.'),
  'auth.malformed-key': server('decisions §6', 'A malformed key (bad shape or checksum, or not Bearer) is 401 invalid_api_key.'),
  'auth.unknown-key': server('decisions §6', 'A well-formed key unknown to the store is 401 invalid_api_key.'),
  'auth.test-key': server('decisions §6', 'Test keys (qc_test_…) are accepted.'),
  'plan.required': server('spec §8, decisions §5', 'quantum-pro without the elite plan is 403 plan_required.'),
  'plan.allowed': server('spec §8', 'quantum-pro with the elite plan is served.'),
  'chat.model-not-found': server('decisions §1', 'An unknown model in a chat request is 404 model_not_found, not 400.'),
  'signature.valid': server('decisions §7', 'X-Service-Signature `t=…,v1=<hex HMAC-SHA256(secret, "t.body")>` over the raw body passes.'),
  'signature.rotation': server('decisions §7', 'Any of several secrets may sign (rotation).'),
  'signature.tolerance': server('decisions §7', 'The timestamp may differ from the clock by at most 300 s, in both directions.'),
  'signature.mismatch': server('decisions §7', 'A wrong or expired signature is 401 invalid_signature and the engine is not called.'),
  'signature.required-by-key': server('decisions §7', 'A key marked as requiring signatures is refused without a good one.'),
  // Limits (the access control decides; the handler and every host must pass its answer through)
  'limits.rate-limited': server('decisions §5', '429 rate_limit_error / rate_limit_exceeded with retry-after (integer seconds ≥ 1) and retry-after-ms.'),
  'limits.insufficient-quota': server('decisions §5, §6', '429 insufficient_quota with x-should-retry: false.'),
  'limits.ratelimit-headers': server('decisions §5', 'Admitted requests carry x-ratelimit-{limit,remaining,reset}-{requests,tokens}, streamed or not.'),
  // Non-streaming responses
  'completion.shape': server('decisions §3, spec §2.5', 'chat.completion: id chatcmpl-…, object, created, model, choices[{index, message, finish_reason, logprobs: null}], usage.'),
  'completion.logprobs': server('decisions §2, §3', 'With logprobs: true the choice carries logprobs {content: [{token, logprob, bytes, top_logprobs}], refusal: null}; without, logprobs is null.'),
  'completion.usage': server('decisions §3', 'usage has prompt_tokens, completion_tokens (reasoning included), total_tokens and completion_tokens_details.reasoning_tokens.'),
  'completion.reasoning-content': server('spec §2.6, decisions §3', 'quantum-reasoner answers carry reasoning_content, serialised before content.'),
  'completion.no-reasoning-for-other-models': server('spec §2.6', 'Other models never carry reasoning_content, whatever their engine yields.'),
  'completion.tool-calls': server('spec §4.1, decisions §3', 'Tool calls: call_ ids, type function, arguments a JSON string; content null when there is no text.'),
  'completion.parallel-tool-calls': server('decisions §3', 'Parallel calls appear in order of first appearance, each with its own id.'),
  'completion.finish-tool-calls': server('decisions §3', 'finish_reason is tool_calls when the answer calls tools.'),
  'completion.finish-length': server('decisions §3', 'finish_reason is length when max_tokens cut the answer.'),
  // Streams
  'stream.headers': server('decisions §4', 'content-type text/event-stream; charset=utf-8, cache-control no-cache, x-accel-buffering no.'),
  'stream.chunk-envelope': server('decisions §4', 'Every chunk repeats id, object chat.completion.chunk, created, model and choices[{index 0, delta, finish_reason}].'),
  'stream.role-first-chunk': server('decisions §4.1', 'Only the very first chunk of a stream carries role "assistant".'),
  'stream.thought-trace': server('spec §6, decisions §4.1', 'Reasoning is `event: thought_trace` with the spec\'s top-level `delta` plus delta.reasoning_content.'),
  'stream.message-content': server('spec §6, decisions §4.2', 'Answer pieces are `event: message` chunks with delta.content.'),
  'stream.tool-call-fragments': server('decisions §4.2', 'A call\'s first fragment has index, id, type, name and arguments ""; later ones index and arguments only.'),
  'stream.parallel-tool-calls': server('decisions §4.2', 'Parallel calls get distinct, stable indexes.'),
  'stream.finish-chunk-usage': server('decisions §4.3', 'A last `event: message` chunk has delta {} and finish_reason, and usage unless stream_options.include_usage is set.'),
  'stream.finish-length': server('decisions §4.3', 'A stream cut by max_tokens (even while reasoning) ends with finish_reason length.'),
  'stream.include-usage': server('decisions §4.3', 'stream_options.include_usage adds a `choices: []` chunk with usage after the finish chunk, and only that chunk carries usage.'),
  'stream.done': server('spec §6, decisions §4.4', 'The stream ends with `data: [DONE]`.'),
  'stream.logprobs': server('decisions §2, §4', 'With logprobs: true each content chunk carries its tokens\' logprobs beside the delta; without, chunks have no logprobs field.'),
  'stream.error-frame': server('decisions §4.5', 'A failure after the first byte is `event: error` with the envelope, and no [DONE].'),
  'stream.error-before-first-event': server('decisions §4.5, §5', 'An engine failing before its first event gives a real HTTP error status, not a 200 stream.'),
  'stream.keep-alive-before-first-token': server('decisions §4.6', 'An engine silent past the keep-alive interval before its first event: 200, SSE headers and a first `: keep-alive` go out, then the answer.'),
  'stream.keep-alive-then-error': server('decisions §4.5, §4.6', 'A failure after that first `: keep-alive` is an `event: error` frame, without [DONE].'),
  'stream.fast-failure-before-keep-alive': server('decisions §4.6', 'An engine failing within the keep-alive interval, before its first event, is a real HTTP error.'),
  'stream.openai-format': server('decisions §4', 'x-stream-format: openai: no event lines, reasoning as plain chunks with no top-level delta.'),
  'stream.openai-format-option': server('decisions §4', 'The handler option streamFormat "openai" selects the OpenAI format.'),
  'stream.openai-error': server('decisions §4', 'In the OpenAI format an error is an unnamed `data: {"error":…}` frame, without [DONE].'),
  'stream.no-reasoning-for-other-models': server('spec §6', 'Only quantum-reasoner streams thought traces.'),
  'stream.incremental': server('spec §6', 'The first frame reaches the client before the engine yields its last event.'),
  // Errors
  'error.envelope': server('decisions §5', '{"error":{"message","type","param","code"}} with the status and type of the code table.'),
  'error.engine-failure-json': server('decisions §5', 'An engine failure in a JSON request is a 5xx envelope (502 upstream_error).'),
  // Client side: what a client must rebuild from streams
  'client.quantum-format': client('decisions §4', 'Our quantum-format streams (event: thought_trace / message) are rebuilt.'),
  'client.openai-format': client('decisions §4', 'Our OpenAI-format streams are rebuilt.'),
  'client.thought-trace': client('decisions §4.1', 'Reasoning from thought_trace events is rebuilt.'),
  'client.tool-call-fragments': client('decisions §4.2', 'Tool-call argument fragments are joined per call.'),
  'client.parallel-tool-calls': client('decisions §4.2', 'Parallel calls are kept apart by index.'),
  'client.usage': client('decisions §4.3', 'Usage is read from the finish chunk or a trailing `choices: []` chunk.'),
  'client.error-frame': client('decisions §4.5', 'An error frame (named or not) ends the request as an error.'),
  'client.multibyte': client('spec §6', 'Multibyte characters survive being cut at any byte.'),
  'client.reasoning-content-dialect': client('decisions §8', 'DeepSeek-style delta.reasoning_content with content null is read as reasoning.'),
  'client.reasoning-dialect': client('decisions §8', 'vLLM/Ollama-style delta.reasoning is read as reasoning.'),
  'client.repeated-tool-call-ids': client('decisions §8', 'A tool-call id repeated on every delta is one call.'),
  'client.whole-tool-call': client('decisions §8', 'Whole tool calls in a single delta are read.'),
  'client.tool-calls-without-index': client('decisions §8', 'Tool calls without index are told apart by id.'),
  'client.comments': client('decisions §4.6', 'SSE comment lines (`: ping`, `: keep-alive`) are skipped.'),
  'client.crlf': client('decisions §8', 'CRLF line ends and `data:` without a space are read.'),
  'client.data-error': client('decisions §8', 'An unnamed `data: {"error":…}` mid-stream is an error, even if [DONE] follows.'),
  'client.object-error': client('decisions §8', 'A `data: {"object":"error",…}` line (vLLM) is an error with the server\'s message, even if [DONE] follows.'),
  'client.empty-reasoning-content': client('decisions §8', 'An empty reasoning_content beside a non-empty reasoning keeps the reasoning.'),
  'client.tool-calls-named-without-index': client('decisions §8', 'Whole tool calls with neither index nor id, each named, are separate calls.'),
  'client.object-arguments': client('decisions §8', 'Tool-call arguments sent as a JSON object are read as its JSON string.'),
  'client.finish-length': client('decisions §3', 'A stream cut by the token limit ends with finish_reason length.'),
  'client.think-tags': client('decisions §8', 'A leading <think> block in the content is reasoning for a reader that splits think tags (the upstream engine), and content otherwise.'),
} as const satisfies Record<string, Requirement>;

/** A requirement id. */
export type RequirementId = keyof typeof requirements;
