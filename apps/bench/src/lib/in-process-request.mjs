import { requestHeaders } from './fixtures.mjs';

/**
 * A POST for `handler.handle()` in process, made as the Node bridge makes it
 * (`createNodeChatRequest`): a class instance that is its own connection, one that never closes.
 */
export class InProcessRequest {
  method = 'POST';
  headers = requestHeaders;
  closed = false;
  constructor(bytes, path = '/chat/completions') {
    this.path = path;
    this.body = { kind: 'bytes', bytes };
  }
  get connection() {
    return this;
  }
  onClose() {
    return () => undefined;
  }
  destroy() {}
}
