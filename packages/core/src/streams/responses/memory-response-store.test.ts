import { describe, expect, it } from 'vitest';
import type { StoredResponse } from '../../contract/response-store.js';
import type { ResponseObject } from '../../schemas/responses/response-object.js';
import { createMemoryResponseStore } from './memory-response-store.js';

function record(id: string, owner: string, expiresAt: number): StoredResponse {
  const response = {
    id,
    object: 'response',
    status: 'completed',
    output: [{ type: 'message', id: `msg_out_${id}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hi', annotations: [], logprobs: [] }] }],
    previous_response_id: null,
  } as unknown as ResponseObject;
  return { response, owner, expiresAt, inputItems: [{ type: 'message', role: 'user', content: 'Hello', id: `msg_in_${id}` }] };
}

describe('createMemoryResponseStore', () => {
  it('reads only the owner\'s responses, and finds their input and output items', async () => {
    const store = createMemoryResponseStore({ now: () => 0 });
    await store.save(record('resp_1', 'acme:live', 100));
    expect(await store.get('resp_1', 'globex:live')).toBeUndefined();
    expect((await store.get('resp_1', 'acme:live'))?.response.id).toBe('resp_1');
    const items = await store.findItems(['msg_in_resp_1', 'msg_out_resp_1', 'msg_none'], 'acme:live');
    expect([...items.keys()].sort()).toEqual(['msg_in_resp_1', 'msg_out_resp_1']);
    expect(items.get('msg_out_resp_1')).toEqual({ type: 'message', id: 'msg_out_resp_1', role: 'assistant', content: [{ type: 'output_text', text: 'Hi' }] });
    expect((await store.findItems(['msg_in_resp_1'], 'globex:live')).size).toBe(0);
    expect(await store.delete('resp_1', 'globex:live')).toBe(false);
    expect(await store.delete('resp_1', 'acme:live')).toBe(true);
    expect(await store.get('resp_1', 'acme:live')).toBeUndefined();
  });

  it('forgets expired responses and keeps at most maxResponses, the oldest going first', async () => {
    let now = 0;
    const store = createMemoryResponseStore({ now: () => now, maxResponses: 2 });
    await store.save(record('resp_1', 'o', 10));
    now = 11;
    expect(await store.get('resp_1', 'o')).toBeUndefined();
    expect(await store.listInputItems('resp_1', 'o', { limit: 20, order: 'desc' })).toBeUndefined();
    await store.save(record('resp_2', 'o', 100));
    await store.save(record('resp_3', 'o', 100));
    await store.save(record('resp_4', 'o', 100));
    expect(await store.get('resp_2', 'o')).toBeUndefined();
    expect((await store.get('resp_4', 'o'))?.response.id).toBe('resp_4');
  });

  it('keeps a copy: later changes by the caller do not reach the store', async () => {
    const store = createMemoryResponseStore({ now: () => 0 });
    const saved = record('resp_1', 'o', 100);
    await store.save(saved);
    saved.response.status = 'failed';
    expect((await store.get('resp_1', 'o'))?.response.status).toBe('completed');
  });
});
