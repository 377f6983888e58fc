import type { ResponseObject, ResponseOutputItem, ResponseStore, StoredInputItem, StoredResponse } from '@quantum-chat/core/responses';
import { describe, expect, it } from 'vitest';

/** A clock the test moves: expiry is read against it. */
interface TestClock {
  now: () => number;
  set(ms: number): void;
}

function testClock(start: number): TestClock {
  let time = start;
  return { now: () => time, set: (ms) => (time = ms) };
}

export interface ResponseStoreFactory {
  /** A new, empty store reading expiry against `now`; `purgeIntervalMs` when the test wants the timer soon. */
  open(options: { now: () => number; purgeIntervalMs?: number }): Promise<ResponseStore & { purgeExpired?(): Promise<number> }>;
  /** Two stores on one new, empty database (two instances would have these); absent for the memory store. */
  openShared?(options: { now: () => number }): Promise<[ResponseStore, ResponseStore]>;
}

const start = 1_900_000_000_000;
const day = 86_400_000;

function response(id: string, overrides: Partial<ResponseObject> = {}): ResponseObject {
  return {
    id, object: 'response', created_at: Math.floor(start / 1000), status: 'completed', completed_at: Math.floor(start / 1000), error: null,
    incomplete_details: null, instructions: null, max_output_tokens: null, model: 'quantum-flash', output: [], parallel_tool_calls: true,
    previous_response_id: null, reasoning: { effort: null, summary: null }, store: true, temperature: 1, text: { format: { type: 'text' } },
    tool_choice: 'auto', tools: [], top_p: 1, background: false, truncation: 'disabled', usage: null, user: null, metadata: {},
    ...overrides,
  };
}

const userMessage = (id: string, text: string): StoredInputItem => ({ type: 'message', id, role: 'user', content: [{ type: 'input_text', text }] });

const answer = (id: string, text: string): ResponseOutputItem => ({
  type: 'message', id, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
});
const functionCall: ResponseOutputItem = { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}', status: 'completed' };
const reasoning: ResponseOutputItem = { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Think of Oslo.' }], status: 'completed' };

function stored(id: string, owner: string, overrides: Partial<Omit<StoredResponse, 'response'>> & { response?: Partial<ResponseObject> } = {}): StoredResponse {
  return { owner, inputItems: [userMessage(`msg_in_${id}`, 'Hello')], expiresAt: start + 30 * day, ...overrides, response: response(id, overrides.response) };
}

/** The behaviour every `ResponseStore` shares; each store runs it with its own factory. */
export function describeResponseStoreContract(name: string, factory: ResponseStoreFactory): void {
  describe(`${name} (ResponseStore contract)`, () => {
    it('should give back a saved response with its input items, and replace it when saved again', async () => {
      const store = await factory.open({ now: () => start });
      const queued = stored('resp_1', 'acme:live', { response: { status: 'queued', completed_at: null, background: true } });
      await store.save(queued);
      expect(await store.get('resp_1', 'acme:live')).toEqual(queued);

      const done = stored('resp_1', 'acme:live', { response: { status: 'completed', background: true, output: [answer('msg_out_1', 'Hi there')] } });
      await store.save(done);
      expect(await store.get('resp_1', 'acme:live')).toEqual(done);
      const replaced = stored('resp_1', 'acme:live', { response: { output: [answer('msg_out_2', 'Hello again')] } });
      await store.save(replaced);
      // The output items are the last save's: the first answer can no longer be referenced.
      expect([...(await store.findItems(['msg_out_1', 'msg_out_2'], 'acme:live')).keys()]).toEqual(['msg_out_2']);
      expect(await store.get('resp_missing', 'acme:live')).toBeUndefined();
      await store.close?.();
    });

    it("should answer only the owner: another organisation's or key kind's reads see nothing, and cannot delete", async () => {
      const store = await factory.open({ now: () => start });
      await store.save(stored('resp_1', 'acme:live', { response: { output: [answer('msg_out_1', 'Hi')] } }));
      for (const other of ['beta:live', 'acme:test']) {
        expect(await store.get('resp_1', other)).toBeUndefined();
        expect(await store.listInputItems('resp_1', other, { limit: 20, order: 'asc' })).toBeUndefined();
        expect((await store.findItems(['msg_out_1', 'msg_in_resp_1'], other)).size).toBe(0);
        expect(await store.delete('resp_1', other)).toBe(false);
      }
      expect((await store.get('resp_1', 'acme:live'))?.response.id).toBe('resp_1');
      await store.close?.();
    });

    it('should forget a deleted response and its items', async () => {
      const store = await factory.open({ now: () => start });
      await store.save(stored('resp_1', 'acme:live', { response: { output: [answer('msg_out_1', 'Hi')] } }));
      await store.save(stored('resp_2', 'acme:live'));
      expect(await store.delete('resp_1', 'acme:live')).toBe(true);
      expect(await store.get('resp_1', 'acme:live')).toBeUndefined();
      expect(await store.listInputItems('resp_1', 'acme:live', { limit: 20, order: 'asc' })).toBeUndefined();
      expect((await store.findItems(['msg_out_1', 'msg_in_resp_1'], 'acme:live')).size).toBe(0);
      expect(await store.delete('resp_1', 'acme:live')).toBe(false);
      expect((await store.get('resp_2', 'acme:live'))?.response.id).toBe('resp_2');
      await store.close?.();
    });

    it('should read an expired response as absent, and purge it', async () => {
      const clock = testClock(start);
      const store = await factory.open({ now: clock.now });
      await store.save(stored('resp_old', 'acme:live', { expiresAt: start + 1_000, response: { output: [answer('msg_out_old', 'Hi')] } }));
      await store.save(stored('resp_new', 'acme:live', { expiresAt: start + day }));
      clock.set(start + 1_000);
      expect(await store.get('resp_old', 'acme:live')).toBeUndefined();
      expect(await store.listInputItems('resp_old', 'acme:live', { limit: 20, order: 'asc' })).toBeUndefined();
      expect((await store.findItems(['msg_out_old', 'msg_in_resp_old'], 'acme:live')).size).toBe(0);
      expect(await store.delete('resp_old', 'acme:live')).toBe(false);
      if (store.purgeExpired !== undefined) {
        expect(await store.purgeExpired()).toBe(1);
        // Gone, not only hidden: with the clock turned back it still reads as absent.
        clock.set(start);
        expect(await store.get('resp_old', 'acme:live')).toBeUndefined();
        expect((await store.findItems(['msg_out_old'], 'acme:live')).size).toBe(0);
      }
      expect((await store.get('resp_new', 'acme:live'))?.response.id).toBe('resp_new');
      await store.close?.();
    });

    it('should purge expired responses on its own timer', async () => {
      const clock = testClock(start);
      const store = await factory.open({ now: clock.now, purgeIntervalMs: 20 });
      if (store.purgeExpired === undefined) return void (await store.close?.());
      await store.save(stored('resp_old', 'acme:live', { expiresAt: start + 1_000 }));
      clock.set(start + 2_000);
      // Read with the clock turned back (the call reads it at once): absent only once deleted.
      const readBeforeExpiry = () => {
        clock.set(start);
        const read = store.get('resp_old', 'acme:live');
        clock.set(start + 2_000);
        return read;
      };
      expect(await readBeforeExpiry()).toBeDefined();
      const deadline = Date.now() + 5_000;
      while ((await readBeforeExpiry()) !== undefined) {
        if (Date.now() > deadline) throw new Error('the purge timer never ran');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await store.close?.();
    });

    it('should find input and output items by id, output items as the conversation items they become', async () => {
      const store = await factory.open({ now: () => start });
      const input = [userMessage('msg_in_1', 'Weather in Oslo?')];
      await store.save(stored('resp_1', 'acme:live', { inputItems: input, response: { output: [reasoning, functionCall] } }));
      await store.save(
        stored('resp_2', 'acme:live', {
          inputItems: [{ type: 'function_call_output', id: 'fco_1', call_id: 'call_1', output: '{"celsius":4}' }],
          response: { previous_response_id: 'resp_1', output: [answer('msg_out_2', 'It is 4 °C.')] },
        }),
      );
      const found = await store.findItems(['msg_in_1', 'rs_1', 'fc_1', 'fco_1', 'msg_out_2', 'unknown'], 'acme:live');
      expect(Object.fromEntries(found)).toEqual({
        msg_in_1: input[0],
        rs_1: { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Think of Oslo.' }] },
        fc_1: { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' },
        fco_1: { type: 'function_call_output', id: 'fco_1', call_id: 'call_1', output: '{"celsius":4}' },
        msg_out_2: { type: 'message', id: 'msg_out_2', role: 'assistant', content: [{ type: 'output_text', text: 'It is 4 °C.' }] },
      });
      expect((await store.get('resp_2', 'acme:live'))?.response.previous_response_id).toBe('resp_1');
      expect((await store.findItems([], 'acme:live')).size).toBe(0);
      await store.close?.();
    });

    it('should answer an id sent again in a later response with the item where it appeared first', async () => {
      const clock = testClock(start);
      const store = await factory.open({ now: clock.now });
      await store.save(stored('resp_1', 'acme:live', { inputItems: [userMessage('msg_same', 'first')] }));
      clock.set(start + 1_000);
      await store.save(stored('resp_2', 'acme:live', { inputItems: [userMessage('msg_same', 'second')], response: { created_at: Math.floor(start / 1000) + 1 } }));
      expect((await store.findItems(['msg_same'], 'acme:live')).get('msg_same')).toEqual(userMessage('msg_same', 'first'));
      await store.close?.();
    });

    it('should page input items after an id, in either order, saying whether more follow', async () => {
      const store = await factory.open({ now: () => start });
      const items = ['a', 'b', 'c', 'd', 'e'].map((letter) => userMessage(`msg_${letter}`, letter));
      await store.save(stored('resp_1', 'acme:live', { inputItems: items }));
      const ids = async (page: Parameters<ResponseStore['listInputItems']>[2]) => {
        const result = await store.listInputItems('resp_1', 'acme:live', page);
        return [result!.items.map((item) => item.id), result!.hasMore];
      };
      expect(await ids({ limit: 20, order: 'asc' })).toEqual([['msg_a', 'msg_b', 'msg_c', 'msg_d', 'msg_e'], false]);
      expect(await ids({ limit: 2, order: 'asc' })).toEqual([['msg_a', 'msg_b'], true]);
      expect(await ids({ after: 'msg_b', limit: 2, order: 'asc' })).toEqual([['msg_c', 'msg_d'], true]);
      expect(await ids({ after: 'msg_d', limit: 2, order: 'asc' })).toEqual([['msg_e'], false]);
      expect(await ids({ limit: 2, order: 'desc' })).toEqual([['msg_e', 'msg_d'], true]);
      expect(await ids({ after: 'msg_d', limit: 2, order: 'desc' })).toEqual([['msg_c', 'msg_b'], true]);
      expect(await ids({ after: 'msg_b', limit: 5, order: 'desc' })).toEqual([['msg_a'], false]);
      expect(await ids({ after: 'msg_e', limit: 5, order: 'asc' })).toEqual([[], false]);
      // An id that is not among the response's input items: nothing follows it.
      expect(await ids({ after: 'msg_unknown', limit: 5, order: 'asc' })).toEqual([[], false]);
      expect((await store.listInputItems('resp_1', 'acme:live', { limit: 1, order: 'asc' }))?.items[0]).toEqual(items[0]);
      expect(await store.listInputItems('resp_missing', 'acme:live', { limit: 5, order: 'asc' })).toBeUndefined();
      await store.close?.();
    });

    it('should give input items back exactly as the request held them (string content, null fields): the handler shapes the listing', async () => {
      const store = await factory.open({ now: () => start });
      const items: StoredInputItem[] = [
        { type: 'message', id: 'msg_plain', role: 'user', content: 'Weather in Oslo?', status: null },
        { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}', status: 'completed' },
        { type: 'function_call_output', id: 'fco_1', call_id: 'call_1', output: '{"celsius":4}' },
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'look it up' }], encrypted_content: null },
      ];
      await store.save(stored('resp_1', 'acme:live', { inputItems: items }));
      expect((await store.listInputItems('resp_1', 'acme:live', { limit: 20, order: 'asc' }))?.items).toEqual(items);
      expect((await store.get('resp_1', 'acme:live'))?.inputItems).toEqual(items);
      await store.close?.();
    });

    if (factory.openShared !== undefined) {
      it('should share responses between two stores on one database (two instances)', async () => {
        const [first, second] = await factory.openShared!({ now: () => start });
        const record = stored('resp_1', 'acme:live', { response: { output: [answer('msg_out_1', 'Hi')] } });
        await first.save(record);
        expect(await second.get('resp_1', 'acme:live')).toEqual(record);
        expect([...(await second.findItems(['msg_out_1'], 'acme:live')).keys()]).toEqual(['msg_out_1']);
        expect(await second.delete('resp_1', 'acme:live')).toBe(true);
        expect(await first.get('resp_1', 'acme:live')).toBeUndefined();
        await first.close?.();
        await second.close?.();
      });
    }
  });
}
