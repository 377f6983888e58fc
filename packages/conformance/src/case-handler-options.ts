import { createSequentialIdGenerator, type ChatHandlerOptions } from '@quantum-chat/core';
import { createSequentialResponseIdGenerator } from '@quantum-chat/core/responses';
import { createConformanceAccessControl } from './conformance-keys.js';
import type { ConformanceCase } from './load-cases.js';
import type { ReplayEngine } from './replay-engine.js';

/** The clock of every case: `created` is 1700000000, and signatures are checked against it. */
export const conformanceNow = 1_700_000_000_000;

/**
 * The handler options of one case: its replay engine, sequential ids (`chatcmpl-000…1`,
 * `call_000…2`, … in the order the handler asks for them; `resp_000…1`, `msg_000…2`, … for
 * the Responses API), a fixed clock, the conformance keys, and the case's own `handler`
 * settings on top.
 */
export function createCaseHandlerOptions(testCase: Pick<ConformanceCase, 'handler'>, engine: ReplayEngine): ChatHandlerOptions {
  const { streamFormat, maxBodyBytes, signingSecrets, signatureToleranceSeconds, keepAliveIntervalMs } = testCase.handler;
  return {
    engine,
    accessControl: createConformanceAccessControl(),
    generateId: createSequentialIdGenerator(),
    responses: { generateId: createSequentialResponseIdGenerator() },
    now: () => conformanceNow,
    ...(streamFormat !== undefined ? { streamFormat } : {}),
    ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}),
    ...(signingSecrets !== undefined ? { signingSecrets } : {}),
    ...(signatureToleranceSeconds !== undefined ? { signatureToleranceSeconds } : {}),
    ...(keepAliveIntervalMs !== undefined ? { keepAliveIntervalMs } : {}),
  };
}
