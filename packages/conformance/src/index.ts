// @quantum-chat/conformance: the fixtures every host and client is held to, and the runners
// that replay them, so every host is checked against the same cases. Private: used by this repo's own test suites.

/** Server side: one vitest test per case, against any host. */
export { runServerConformance } from './run-server-conformance.js';
export type { ConformanceHost, RemoteReplayEngine, StartConformanceHost, ServerConformanceOptions } from './run-server-conformance.js';
/** Node host adapters: failures of the bridge reported the same way (`onBridgeError`) by every host. */
export { runHostBridgeConformance } from './run-host-bridge-conformance.js';
export type { StartBridgeHost } from './run-host-bridge-conformance.js';
/** Hosts in other JavaScript runtimes: one case router there (`/portable`), one remote host per case here. */
export { remoteCaseHost, toPortableCase } from './remote-case-host.js';
export type { PortableCase } from './case-router.js';
export type { ConformanceFetch, SavedValues } from './send-case-request.js';
export { createCaseHandlerOptions, conformanceNow } from './case-handler-options.js';

/** Client side: every stream fixture, cut at random byte boundaries. */
export { runClientConformance } from './run-client-conformance.js';
export type { ClientConformanceOptions } from './run-client-conformance.js';
export { expectCollected } from './compare-collected.js';
export type { StreamReaderTraits } from './compare-collected.js';
export type {
  Collect,
  CollectInput,
  CollectedAnswer,
  CollectedCompletion,
  CollectedError,
  CollectedToolCall,
  CollectedUsage,
} from './collected-completion.js';
export { cutStream } from './cut-bytes.js';
export type { Cutting } from './cut-bytes.js';
/** Host side: a whole SSE body checked frame by frame against decisions §4. */
export { readSpecStream } from './read-spec-stream.js';
export type { StreamSummary } from './read-spec-stream.js';
/** A Responses stream read into events and held to decisions §10; `assertResponseStream` compares it with an expected one. */
export { readResponseStream } from './responses/response-stream-rules.js';
export type { ResponseStreamEvent, ResponseStreamReading } from './responses/response-stream-rules.js';
export { assertResponseStream } from './responses/compare-response-stream.js';

/** Fixtures: loading, checking, and the requirements they cover. */
export { loadCases, loadClientFixtures, loadResponsesStreamFixtures, loadFixtures, defaultFixturesDirectory, dialectsArea } from './load-cases.js';
export type { CaseApi, CaseRequest, CaseStep, ClientFixture, ConformanceCase, FixtureSet } from './load-cases.js';
export { anyString, caseFileSchema, expectedCompletionSchema, replayEventSchema } from './fixture-schemas.js';
export type { CaseFile, CaseRequestFile, CaseStepFile, ExpectedCompletion, ReplayEvent } from './fixture-schemas.js';
export { requirements } from './requirements.js';
export type { Requirement, RequirementId } from './requirements.js';

/** The engine stand-in and the fixed keys. */
export { createReplayEngine } from './replay-engine.js';
export type { ReplayEngine, ReplayEngineOptions } from './replay-engine.js';
export { parseEngineScript } from './parse-engine-script.js';
export { conformanceKeys, createConformanceAccessControl } from './conformance-keys.js';

/** A slow client over a real socket: a head or body that never finishes arriving (request timeouts). */
export { trickleRequest } from './trickle-request.js';
export type { TricklePhase, TrickleRequestOptions, TrickleOutcome } from './trickle-request.js';

/** OpenAPI: responses and stream events checked against the served document. */
export { createOpenApiChecker, mediaTypeOf } from './openapi/create-openapi-checker.js';
export type { FoundOperation, MediaTypeObject, OpenApiChecker, OpenApiDocument, OperationObject, ReceivedResponse, ResponseObject } from './openapi/create-openapi-checker.js';
export { parseEventStream } from './openapi/parse-event-stream.js';
export type { EventStreamItem } from './openapi/parse-event-stream.js';
/** Property-based checks driven by a served OpenAPI document, and what they are built from. */
export { createOpenApiProperties } from './openapi/openapi-properties.js';
export type { OpenApiPropertiesOptions, PropertyOperation, PropertyRun, PropertyTally, RefusalError } from './openapi/openapi-properties.js';
export { arbitraryFromSchema } from './openapi/arbitrary-from-schema.js';
export type { SchemaContext } from './openapi/arbitrary-from-schema.js';
export { pickMutation } from './openapi/mutate-against-schema.js';
export type { Mutation } from './openapi/mutate-against-schema.js';
export { canSendMutation, hasSendablePath, parameterValue, requestPartsSchema, toOperationRequest } from './openapi/operation-requests.js';
export type { OperationRequest, RequestParts } from './openapi/operation-requests.js';
export { chatCrossFieldRules, crossFieldRuleOf, followChatCrossFieldRules, streamRouteRefusalOf } from './openapi/chat-cross-field-rules.js';
export { followResponsesCrossFieldRules, responsesRefusalOf } from './openapi/responses-cross-field-rules.js';
export { createWatchedEngineContext } from './watched-engine-context.js';
export type { WatchedEngineContext } from './watched-engine-context.js';
