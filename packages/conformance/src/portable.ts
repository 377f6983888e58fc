// @quantum-chat/conformance/portable: what runs in any JavaScript runtime (workerd, Bun, Deno):
// the replay engine, the case handler options and keys, and a router serving many cases from
// one fetch handler. Nothing from `node:` and no test runner.

export { createCaseRouter } from './case-router.js';
export type { CaseRouterOptions, PortableCase } from './case-router.js';
export { createReplayEngine } from './replay-engine.js';
export type { ReplayEngine, ReplayEngineOptions } from './replay-engine.js';
export { createCaseHandlerOptions, conformanceNow } from './case-handler-options.js';
export { conformanceKeys, createConformanceAccessControl } from './conformance-keys.js';
