import { describe, expect, it } from 'vitest';
import { loadCases, readResponseStream } from '../src/index.js';

// The rules a Responses stream is held to (decisions §10) must refuse each way of breaking
// them: every fixture stream passes, and a copy broken in one place is named.

const stream = loadCases().find((testCase) => testCase.id === 'responses/reasoner-stream')!;
const text = new TextDecoder().decode((stream.response as { bytes: Uint8Array }).bytes);

type Frame = { name: string; data: Record<string, unknown> };
const frames: Frame[] = text
  .slice(0, -2)
  .split('\n\n')
  .map((frame) => {
    // Without the resumable stream's retry and id lines: the rules accept both forms.
    const [eventLine, dataLine] = frame.split('\n').filter((line) => !/^(retry|id): /.test(line)) as [string, string];
    return { name: eventLine.slice('event: '.length), data: JSON.parse(dataLine.slice('data: '.length)) as Record<string, unknown> };
  });

function write(list: Frame[]): string {
  return list.map((frame) => `event: ${frame.name}\ndata: ${JSON.stringify(frame.data)}\n\n`).join('');
}

/** The stream with sequence numbers written anew, so that only the intended fault remains. */
function renumbered(list: Frame[]): Frame[] {
  return list.map((frame, index) => ({ ...frame, data: { ...frame.data, sequence_number: index } }));
}

function problemsOf(body: string): string[] {
  return readResponseStream(body).problems;
}

const indexOf = (name: string) => frames.findIndex((frame) => frame.name === name);

describe('readResponseStream', () => {
  it('should accept every Responses stream fixture', () => {
    const streams = loadCases().filter((testCase) => testCase.api === 'responses' && testCase.response.kind === 'sse');
    expect(streams.length).toBeGreaterThanOrEqual(4);
    for (const testCase of streams) {
      const reading = readResponseStream(new TextDecoder().decode((testCase.response as { bytes: Uint8Array }).bytes));
      expect(reading.problems, testCase.id).toEqual([]);
      expect(reading.events.at(-1)!.name, testCase.id).toMatch(/^response\.(completed|incomplete)$/);
    }
  });

  it('should accept the plain frames and the resumable ones, and refuse id lines on some frames only or out of order', () => {
    expect(text.startsWith('retry: 1000\nid: 1\nevent: response.created\n')).toBe(true);
    expect(problemsOf(text)).toEqual([]);
    expect(problemsOf(write(frames))).toEqual([]);
    expect(problemsOf(text.replace('id: 3\n', '')).join('\n')).toMatch(/frame 2: an id line must be on every frame or on none/);
    expect(problemsOf(text.replace('id: 3\n', 'id: 2\n')).join('\n')).toMatch(/frame 2: its id 2 does not follow 2/);
  });

  it('should refuse a [DONE] after the terminal event', () => {
    expect(problemsOf(`${text}data: [DONE]\n\n`)).toContain('a Responses stream sends no [DONE]');
  });

  it('should refuse a frame without its event name', () => {
    expect(problemsOf(text.replace('event: response.in_progress\n', '')).join('\n')).toMatch(/not an "event: <name>" line/);
  });

  it('should refuse an event whose type is not its name', () => {
    const changed = frames.map((frame, index) => (index === 3 ? { ...frame, name: 'response.output_text.delta' } : frame));
    expect(problemsOf(write(changed)).join('\n')).toMatch(/event 3 .*its type is/);
  });

  it('should refuse sequence numbers that skip or repeat', () => {
    const skipped = frames.map((frame, index) => (index >= 5 ? { ...frame, data: { ...frame.data, sequence_number: index + 1 } } : frame));
    expect(problemsOf(write(skipped)).join('\n')).toMatch(/event 5 .*sequence_number is 6, expected 5/);
  });

  it('should refuse a stream that does not start with response.created then response.in_progress', () => {
    const swapped = renumbered([frames[1]!, frames[0]!, ...frames.slice(2)]);
    expect(problemsOf(write(swapped)).join('\n')).toMatch(/the first event must be response\.created/);
  });

  it('should refuse a stream without its terminal event', () => {
    expect(problemsOf(write(frames.slice(0, -1))).join('\n')).toMatch(/must end with response\.completed/);
  });

  it('should refuse the message item before the reasoning item is done', () => {
    const reasoningDone = indexOf('response.output_item.done');
    const messageAdded = frames.findIndex((frame, index) => index > reasoningDone && frame.name === 'response.output_item.added');
    const moved = renumbered([...frames.slice(0, reasoningDone - 1), ...frames.slice(messageAdded, messageAdded + 2), ...frames.slice(reasoningDone - 1, messageAdded), ...frames.slice(messageAdded + 2)]);
    expect(problemsOf(write(moved)).join('\n')).toMatch(/a message item is added while rs_\w+ is open/);
  });

  it('should refuse a delta after its item is done, and a done text that is not the deltas joined', () => {
    const delta = indexOf('response.output_text.delta');
    const late = renumbered([...frames.slice(0, -1), frames[delta]!, frames.at(-1)!]);
    expect(problemsOf(write(late)).join('\n')).toMatch(/is not open/);
    const dropped = renumbered(frames.filter((_, index) => index !== delta));
    expect(problemsOf(write(dropped)).join('\n')).toMatch(/its text is not the deltas joined/);
  });

  it('should refuse a final response whose output differs from the items as done', () => {
    const last = frames.at(-1)!;
    const response = last.data.response as { output: unknown[] };
    const changed = [...frames.slice(0, -1), { ...last, data: { ...last.data, response: { ...response, output: response.output.slice(1) } } }];
    expect(problemsOf(write(changed)).join('\n')).toMatch(/not the items as their output_item\.done events gave them/);
  });
});
