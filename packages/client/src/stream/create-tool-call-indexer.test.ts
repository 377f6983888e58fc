import { describe, expect, it } from 'vitest';
import { createToolCallIndexer } from './create-tool-call-indexer.js';

describe('createToolCallIndexer', () => {
  it('should keep wire indexes of a well-formed stream', () => {
    const indexer = createToolCallIndexer();
    const indexes = [
      indexer.resolve({ index: 0, id: 'call_a', name: 'a' }),
      indexer.resolve({ index: 1, id: 'call_b', name: 'b' }),
      indexer.resolve({ index: 0 }),
      indexer.resolve({ index: 1 }),
    ];
    expect(indexes).toEqual([0, 1, 0, 1]);
  });

  it('should follow ids when they are repeated on every fragment', () => {
    const indexer = createToolCallIndexer();
    expect([indexer.resolve({ id: 'x', name: 'a' }), indexer.resolve({ id: 'y', name: 'b' }), indexer.resolve({ id: 'x' }), indexer.resolve({ id: 'y' })]).toEqual([0, 1, 0, 1]);
  });

  it('should give parallel calls that all say index 0 an index each', () => {
    const indexer = createToolCallIndexer();
    expect([
      indexer.resolve({ index: 0, id: 'x', name: 'a' }),
      indexer.resolve({ index: 0 }),
      indexer.resolve({ index: 0, id: 'y', name: 'b' }),
      indexer.resolve({ index: 0 }),
    ]).toEqual([0, 0, 1, 1]);
  });

  it('should start a new call on a name and continue the latest one otherwise when there is no index or id', () => {
    const indexer = createToolCallIndexer();
    expect([indexer.resolve({}), indexer.resolve({ name: 'a' }), indexer.resolve({}), indexer.resolve({ name: 'b' }), indexer.resolve({})]).toEqual([0, 1, 1, 2, 2]);
  });
});
