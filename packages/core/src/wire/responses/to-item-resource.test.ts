import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import type { StoredInputItem } from '../../contract/response-store.js';
import { responseItemListSchema } from '../../schemas/responses/item-resource.js';
import { toItemResource } from './to-item-resource.js';

setFlagsFromString('--allow-natives-syntax');
/** V8's own check that two objects share one hidden class (its `%HaveSameMap`). */
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- V8's natives syntax is reachable only through code compiled at run time.
const sameHiddenClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

const listed = (items: StoredInputItem[]) => {
  const data = items.map(toItemResource);
  // Every listed item is one of OpenAI's ItemResource shapes, nothing more.
  responseItemListSchema.parse({ object: 'list', data, first_id: null, last_id: null, has_more: false });
  return data;
};

describe('toItemResource', () => {
  it('keeps a status OpenAI knows and lists any other (or none) as completed', () => {
    const statuses = [undefined, null, 'completed', 'in_progress', 'incomplete', 'banana'];
    const data = listed(statuses.map((status, index) => ({ type: 'function_call', id: `fc_${index}`, call_id: 'call_1', name: 'f', arguments: '{}', status }) as StoredInputItem));
    expect(data.map((item) => item.status)).toEqual(['completed', 'completed', 'completed', 'in_progress', 'incomplete', 'completed']);
  });

  it('lists a function output of parts as input_text parts, a string as it is', () => {
    const data = listed([
      { type: 'function_call_output', id: 'fco_1', call_id: 'call_1', output: [{ type: 'input_text', text: '4' }, { type: 'input_text', text: '2' }] },
      { type: 'function_call_output', id: 'fco_2', call_id: 'call_1', output: '42', status: null },
    ]);
    expect(data).toEqual([
      { type: 'function_call_output', id: 'fco_1', status: 'completed', call_id: 'call_1', output: [{ type: 'input_text', text: '4' }, { type: 'input_text', text: '2' }] },
      { type: 'function_call_output', id: 'fco_2', status: 'completed', call_id: 'call_1', output: '42' },
    ]);
  });

  it('lists a reasoning item with the content and encrypted content it was sent with, nulls left out', () => {
    const data = listed([
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'a' }], content: [{ type: 'reasoning_text', text: 'b' }], encrypted_content: 'opaque' },
      { type: 'reasoning', id: 'rs_2', summary: [], content: null, encrypted_content: null, status: null },
    ]);
    expect(data).toEqual([
      { type: 'reasoning', id: 'rs_1', status: 'completed', summary: [{ type: 'summary_text', text: 'a' }], content: [{ type: 'reasoning_text', text: 'b' }], encrypted_content: 'opaque' },
      { type: 'reasoning', id: 'rs_2', status: 'completed', summary: [] },
    ]);
  });

  it('gives an assistant part its annotations and logprobs, as sent or empty', () => {
    const annotation = { type: 'url_citation', url: 'https://example.com' };
    const data = listed([
      { type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'a', annotations: [annotation], logprobs: null }, { type: 'input_text', text: 'b' }] },
      { type: 'message', id: 'msg_2', role: 'system', content: [{ type: 'output_text', text: 'c', annotations: [annotation] }] },
    ]);
    expect(data).toEqual([
      {
        type: 'message',
        id: 'msg_1',
        status: 'completed',
        role: 'assistant',
        content: [
          { type: 'output_text', text: 'a', annotations: [annotation], logprobs: [] },
          { type: 'output_text', text: 'b', annotations: [], logprobs: [] },
        ],
      },
      { type: 'message', id: 'msg_2', status: 'completed', role: 'system', content: [{ type: 'input_text', text: 'c' }] },
    ]);
  });

  it('lists every message of a role with one hidden class, not one each (a page lists up to 100)', () => {
    for (const role of ['user', 'assistant'] as const) {
      // Past the first few, V8 builds such objects through its fast paths, where the shape goes wrong.
      const data = listed(Array.from({ length: 40 }, (_, index) => ({ type: 'message', id: `msg_${index}`, role, content: `text ${index}` }) as StoredInputItem));
      expect(data.slice(-30).filter((item) => !sameHiddenClass(item, data.at(-1)!))).toHaveLength(0);
    }
  });
});
