import { describe, expect, it } from 'vitest';
import { applyStopSequences } from './apply-stop-sequences.js';

describe('applyStopSequences', () => {
  it('should cut before the earliest stop sequence', () => {
    expect(applyStopSequences('alpha beta. gamma! delta', ['!', '.'])).toEqual({ text: 'alpha beta', stopped: true });
  });

  it('should leave the text alone without a match or with empty sequences', () => {
    expect(applyStopSequences('alpha', ['', 'zeta'])).toEqual({ text: 'alpha', stopped: false });
    expect(applyStopSequences('alpha', undefined)).toEqual({ text: 'alpha', stopped: false });
  });
});
