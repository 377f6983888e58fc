/** A piece of streamed text, sorted into reasoning or answer. */
export interface ThinkTagPiece {
  type: 'reasoning' | 'content';
  text: string;
}

/** An incremental splitter of `<think>…</think>` out of streamed content. */
export interface ThinkTagSplitter {
  /** Takes the next piece of content; returns what can be decided so far. */
  push(text: string): ThinkTagPiece[];
  /** Marks the end of the stream: returns whatever was held back. */
  end(): ThinkTagPiece[];
  /**
   * True once every later piece passes through unchanged (no block at the start, or the block
   * is over and its trailing white space dropped): `push(text)` would return `text` as content.
   */
  passesThrough(): boolean;
}

const openTag = '<think>';
const closeTag = '</think>';

/** The length of the longest suffix of `text` that is a proper prefix of `tag`. */
function partialTagLength(text: string, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length--) {
    if (tag.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}

/**
 * Splits a leading `<think>…</think>` block (Qwen3, QwQ, DeepSeek-R1 distills served without a
 * reasoning parser) out of streamed content, however the tags are cut across chunks.
 *
 * Only a block at the very start of the answer (after optional white space) counts: a model
 * that writes about `<think>` tags later in its answer keeps its text. White space just inside
 * the block and right after it is dropped, as reasoning parsers do. Text that does not start
 * with a block passes through unchanged, so the only cost for other models is holding back a
 * leading white-space run or a leading `<` until it is clear that no tag follows.
 *
 * @example
 * const splitter = createThinkTagSplitter();
 * splitter.push('<thi'); // []
 * splitter.push('nk>plan</think>\n\nHi'); // [{ type: 'reasoning', text: 'plan' }, { type: 'content', text: 'Hi' }]
 */
export function createThinkTagSplitter(): ThinkTagSplitter {
  let state: 'start' | 'inside' | 'after' | 'passthrough' = 'start';
  /** Text not yet decided: a possible opening tag, or reasoning that may end in a closing tag. */
  let held = '';
  /** Reasoning has been emitted, so later white space inside the block is kept. */
  let reasoningStarted = false;

  function reasoningPiece(text: string, pieces: ThinkTagPiece[]): void {
    const trimmed = reasoningStarted ? text : text.trimStart();
    if (trimmed === '') return;
    reasoningStarted = true;
    pieces.push({ type: 'reasoning', text: trimmed });
  }

  function push(text: string): ThinkTagPiece[] {
    const pieces: ThinkTagPiece[] = [];
    let rest = held + text;
    held = '';
    while (rest !== '') {
      if (state === 'passthrough') {
        pieces.push({ type: 'content', text: rest });
        break;
      }
      if (state === 'after') {
        rest = rest.trimStart();
        if (rest !== '') state = 'passthrough';
        continue;
      }
      if (state === 'start') {
        const start = rest.trimStart();
        if (start.startsWith(openTag)) {
          state = 'inside';
          rest = start.slice(openTag.length);
          continue;
        }
        if (openTag.startsWith(start)) {
          held = rest; // white space only, or a cut opening tag: wait for more
          break;
        }
        state = 'passthrough';
        continue;
      }
      // inside: emit reasoning up to the closing tag, holding back a possible cut tag and
      // trailing white space (which is dropped if the block closes right after it).
      const close = rest.indexOf(closeTag);
      if (close !== -1) {
        reasoningPiece(rest.slice(0, close).trimEnd(), pieces);
        state = 'after';
        rest = rest.slice(close + closeTag.length);
        continue;
      }
      const keep = partialTagLength(rest, closeTag);
      const body = rest.slice(0, rest.length - keep);
      const kept = body.trimEnd();
      reasoningPiece(kept, pieces);
      held = rest.slice(kept.length);
      break;
    }
    return pieces;
  }

  function end(): ThinkTagPiece[] {
    const rest = held;
    held = '';
    if (state === 'start') {
      state = 'passthrough';
      return rest === '' ? [] : [{ type: 'content', text: rest }];
    }
    if (state !== 'inside') return [];
    // A block cut short (max_tokens): a held partial closing tag is reasoning after all.
    const pieces: ThinkTagPiece[] = [];
    reasoningPiece(rest.trimEnd(), pieces);
    return pieces;
  }

  return { push, end, passesThrough: () => state === 'passthrough' };
}
