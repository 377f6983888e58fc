/**
 * The README examples of the published packages are real files (`packages/<pkg>/examples/`),
 * which the packaging test type-checks against the tarballs; here every README must show
 * them verbatim. `pnpm readme:examples` copies the files into the READMEs.
 */
import { describe, expect, it } from 'vitest';
import { checkReadmeExamples } from '../src/readme-examples.mjs';

describe('checkReadmeExamples', () => {
  it('should find every published README showing its example files verbatim', () => {
    expect(checkReadmeExamples()).toEqual([]);
  });
});
