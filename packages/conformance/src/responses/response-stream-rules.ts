/** One event of a Responses stream as sent: its `event:` name and its JSON. */
export interface ResponseStreamEvent {
  name: string;
  data: Record<string, unknown>;
}

/** A Responses stream read into events, and every way it breaks decisions §10 (empty when it keeps them). */
export interface ResponseStreamReading {
  events: ResponseStreamEvent[];
  problems: string[];
}

const terminalTypes = new Set(['response.completed', 'response.incomplete', 'response.failed']);
const terminalStatus: Record<string, string> = { 'response.completed': 'completed', 'response.incomplete': 'incomplete', 'response.failed': 'failed' };

/**
 * The events an item of each type goes through after `response.output_item.added`, in order
 * (`*` marks the one that may repeat, or be absent), before its `response.output_item.done`.
 */
const itemEventOrder: Record<string, readonly string[]> = {
  message: ['response.content_part.added', 'response.output_text.delta*', 'response.output_text.done', 'response.content_part.done'],
  reasoning: [
    'response.reasoning_summary_part.added',
    'response.reasoning_summary_text.delta*',
    'response.reasoning_summary_text.done',
    'response.reasoning_summary_part.done',
  ],
  function_call: ['response.function_call_arguments.delta*', 'response.function_call_arguments.done'],
};

interface OpenItem {
  id: string;
  type: string;
  outputIndex: number;
  /** Where it stands in its `itemEventOrder`. */
  step: number;
  /** Its deltas joined, checked against the `.done` event's text. */
  text: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Splits the body into frames (comments skipped), each `event: <name>` then one `data:` line,
 * after an `id: <n>` line on every frame or none (ids increasing) and a `retry:` line on the
 * first: the frames of a resumable stream.
 */
function readFrames(text: string, problems: string[]): ResponseStreamEvent[] {
  if (!text.endsWith('\n\n')) problems.push('the body does not end with a complete frame (a blank line)');
  const events: ResponseStreamEvent[] = [];
  const ids: number[] = [];
  let withIds: boolean | undefined;
  for (const frame of text.replace(/\n\n$/, '').split('\n\n')) {
    if (frame.startsWith(':')) continue;
    if (frame === 'data: [DONE]' || frame.endsWith('\ndata: [DONE]')) {
      problems.push('a Responses stream sends no [DONE]');
      continue;
    }
    const lines = frame.split('\n');
    // A stored stream is resumable: `retry:` on the first frame, and an `id:` on every frame.
    if (events.length === 0 && /^retry: \d+$/.test(lines[0]!)) lines.shift();
    const id = /^id: (\d+)$/.exec(lines[0]!)?.[1];
    if (id !== undefined) lines.shift();
    withIds ??= id !== undefined;
    if ((id !== undefined) !== withIds) problems.push(`frame ${events.length}: an id line must be on every frame or on none`);
    if (id !== undefined) {
      if (ids.length > 0 && Number(id) <= ids.at(-1)!) problems.push(`frame ${events.length}: its id ${id} does not follow ${ids.at(-1)!}`);
      ids.push(Number(id));
    }
    if (lines.length !== 2 || !lines[0]!.startsWith('event: ') || !lines[1]!.startsWith('data: ')) {
      problems.push(`frame ${events.length}: not an "event: <name>" line and one "data: " line: ${JSON.stringify(frame.slice(0, 120))}`);
      continue;
    }
    let data: unknown;
    try {
      data = JSON.parse(lines[1]!.slice('data: '.length));
    } catch {
      problems.push(`frame ${events.length}: its data is not JSON`);
      continue;
    }
    if (!isObject(data)) {
      problems.push(`frame ${events.length}: its data is not a JSON object`);
      continue;
    }
    events.push({ name: lines[0]!.slice('event: '.length), data });
  }
  return events;
}

/**
 * Reads a whole Responses SSE body and checks it against decisions §10: every frame a named
 * event whose JSON repeats the name as `type`; `sequence_number` 0, 1, 2, …; `response.created`
 * then `response.in_progress` first; each output item added at the next `output_index` once the
 * items before it are done (only a turn's function calls are open together), its
 * events in the order of its type with deltas that add up to the `.done` text, and done before
 * the end; an `error` event only right before `response.failed`; exactly one terminal event
 * (`response.completed`, `.incomplete` or `.failed`), last, whose response has the matching
 * status, the same id and `created_at` as the first, and the items as they were done; no `[DONE]`.
 */
export function readResponseStream(text: string): ResponseStreamReading {
  const problems: string[] = [];
  const events = readFrames(text, problems);
  const open = new Map<string, OpenItem>();
  const doneItems: unknown[] = [];
  let added = 0;
  let identity: { id: unknown; created_at: unknown } | undefined;
  events.forEach(({ name, data }, index) => {
    const at = `event ${index} (${name})`;
    const fail = (problem: string) => problems.push(`${at}: ${problem}`);
    if (data.type !== name) fail(`its type is ${JSON.stringify(data.type)}, not the event's name`);
    if (data.sequence_number !== index) fail(`sequence_number is ${JSON.stringify(data.sequence_number)}, expected ${index}`);
    if (index === 0 && name !== 'response.created') fail('the first event must be response.created');
    if (index === 1 && name !== 'response.in_progress') fail('the second event must be response.in_progress');
    const last = index === events.length - 1;
    if (terminalTypes.has(name) && !last) fail('a terminal event must be the last');
    if (last && !terminalTypes.has(name)) fail('the stream must end with response.completed, response.incomplete or response.failed');
    if (name === 'error' && events[index + 1]?.name !== 'response.failed') fail('an error event must be followed by response.failed');
    if (name.startsWith('response.') && isObject(data.response)) {
      const response = data.response;
      identity ??= { id: response.id, created_at: response.created_at };
      if (response.id !== identity.id || response.created_at !== identity.created_at) fail('the response id or created_at changed during the stream');
      if (terminalTypes.has(name)) {
        if (response.status !== terminalStatus[name]) fail(`the response's status is ${JSON.stringify(response.status)}`);
        if (open.size > 0) fail(`items still open: ${[...open.keys()].join(', ')}`);
        if (JSON.stringify(response.output) !== JSON.stringify(doneItems)) fail('the response output is not the items as their output_item.done events gave them');
      } else if (!['in_progress', 'queued'].includes(response.status as string)) {
        fail(`the response's status is ${JSON.stringify(response.status)} before the end`);
      }
    }
    if (name === 'response.output_item.added') {
      const item = data.item;
      if (data.output_index !== added) fail(`output_index ${JSON.stringify(data.output_index)}, expected ${added}`);
      if (!isObject(item) || typeof item.id !== 'string' || !(String(item.type) in itemEventOrder)) fail('the item needs an id and a type of message, reasoning or function_call');
      else {
        // A new kind closes the open item; only the function calls of one turn stay open together.
        const blocking = [...open.values()].filter((other) => other.type !== 'function_call' || item.type !== 'function_call');
        if (blocking.length > 0) fail(`a ${String(item.type)} item is added while ${blocking.map((other) => other.id).join(', ')} is open`);
        open.set(item.id, { id: item.id, type: String(item.type), outputIndex: added, step: 0, text: '' });
      }
      added++;
      return;
    }
    if (name === 'response.output_item.done') {
      const item = data.item;
      const entry = isObject(item) ? open.get(String(item.id)) : undefined;
      if (entry === undefined) return void fail('done for an item that is not open');
      if (data.output_index !== entry.outputIndex) fail(`output_index ${JSON.stringify(data.output_index)}, the item was added at ${entry.outputIndex}`);
      const order = itemEventOrder[entry.type]!;
      if (entry.step < order.length) fail(`the item is done before ${order[entry.step]!.replace('*', '')}`);
      open.delete(entry.id);
      doneItems[entry.outputIndex] = item;
      return;
    }
    if (typeof data.item_id !== 'string') return;
    const entry = open.get(data.item_id);
    if (entry === undefined) return void fail(`item ${data.item_id} is not open`);
    if (data.output_index !== entry.outputIndex) fail(`output_index ${JSON.stringify(data.output_index)}, the item was added at ${entry.outputIndex}`);
    const order = itemEventOrder[entry.type]!;
    // Advance past an optional repeating step when this event is the one after it.
    let step = entry.step;
    if (order[step] !== undefined && order[step]!.endsWith('*') && order[step] !== `${name}*`) step++;
    const expected = order[step];
    if (expected === undefined || expected.replace('*', '') !== name) return void fail(`out of order for a ${entry.type} item (expected ${expected?.replace('*', '') ?? 'response.output_item.done'})`);
    entry.step = expected.endsWith('*') ? step : step + 1;
    if (name.endsWith('.delta')) entry.text += String(data.delta);
    const whole = name === 'response.function_call_arguments.done' ? data.arguments : name.endsWith('text.done') ? data.text : undefined;
    if (whole !== undefined && whole !== entry.text) fail('its text is not the deltas joined');
  });
  if (events.length === 0) problems.push('the stream has no events');
  return { events, problems };
}
