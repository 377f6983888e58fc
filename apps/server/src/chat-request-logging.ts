import { clientClosedStatus, type ChatHandlerOptions, type ChatRequestRecord } from '@quantum-chat/core';
import type { FastifyBaseLogger } from 'fastify';

/**
 * The handler's reporting hooks, writing structured logs. A key appears only as its display
 * form (prefix and last 4: `principal.keyId`), never whole.
 *
 * @example
 * createChatHandler({ engine, accessControl, ...createChatRequestLogging(app.log) });
 */
export function createChatRequestLogging(log: FastifyBaseLogger): Pick<ChatHandlerOptions, 'onRequestSettled' | 'onError'> {
  return {
    onRequestSettled(record: ChatRequestRecord) {
      const fields = {
        reqId: record.requestId,
        model: record.model,
        status: record.status,
        stream: record.stream,
        promptTokens: record.promptTokens,
        completionTokens: record.completionTokens,
        totalTokens: record.promptTokens + record.completionTokens,
        interrupted: record.interrupted,
        durationMs: Math.round(record.durationMs),
        key: record.principal?.keyId,
        keyKind: record.principal?.kind,
        organisation: record.principal?.organisationId,
      };
      // Not a failure of ours (decisions §5): logged as `client_closed`, 499.
      if (record.status === clientClosedStatus) log.info({ ...fields, outcome: 'client_closed' }, 'client closed the connection before the answer');
      else if (record.status >= 500) log.warn(fields, 'chat completion failed');
      else if (record.status >= 400) log.info(fields, 'chat request refused');
      else log.info(fields, record.interrupted ? 'chat completion interrupted' : 'chat completion settled');
    },
    onError(error: unknown, context: { requestId: string }) {
      log.error({ reqId: context.requestId, err: error }, 'chat request error');
    },
  };
}
