import { describe, expect, it } from 'vitest';
import * as main from './index.js';
import * as schemas from './schemas.js';

describe('the /schemas entry', () => {
  it('should export every schema the main entry exports', () => {
    const isSchemaExport = (name: string) => name.endsWith('Schema') || name === 'toolNamePattern';
    expect(Object.keys(schemas).filter(isSchemaExport).sort()).toEqual(Object.keys(main).filter(isSchemaExport).sort());
  });
});
