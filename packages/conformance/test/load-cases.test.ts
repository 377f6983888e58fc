import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultFixturesDirectory, loadFixtures } from '../src/index.js';

const copies: string[] = [];

/** A small copy of the fixtures: two areas, one of them client-only. */
function copyFixtures(): string {
  const directory = mkdtempSync(join(tmpdir(), 'conformance-fixtures-'));
  copies.push(directory);
  for (const area of ['routing', 'dialects', 'chat']) cpSync(join(defaultFixturesDirectory, area), join(directory, area), { recursive: true });
  return directory;
}

afterEach(() => {
  for (const directory of copies.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe('loadFixtures', () => {
  it('should load the shipped fixtures', () => {
    const { cases, clientFixtures } = loadFixtures();
    expect(cases.length).toBeGreaterThan(50);
    expect(clientFixtures.length).toBeGreaterThan(10);
  });

  it('should fail on an engine script without a case', () => {
    const directory = copyFixtures();
    writeFileSync(join(directory, 'chat', 'forgotten.engine.jsonl'), '{"type":"content","text":"hi"}\n');
    expect(() => loadFixtures(directory)).toThrow(/chat\/forgotten.*no \.case\.json/);
  });

  it('should fail on a file with an unknown suffix', () => {
    const directory = copyFixtures();
    writeFileSync(join(directory, 'chat', 'notes.txt'), 'todo');
    expect(() => loadFixtures(directory)).toThrow(/chat\/notes\.txt: orphan/);
  });

  it('should fail on a dialect expected result without its stream', () => {
    const directory = copyFixtures();
    writeFileSync(join(directory, 'dialects', 'lonely.expected.json'), '{"reasoning":"","content":"","toolCalls":[],"finishReason":"stop"}');
    expect(() => loadFixtures(directory)).toThrow(/dialects\/lonely/);
  });

  it('should fail on a case whose id does not match its file', () => {
    const directory = copyFixtures();
    const file = join(directory, 'routing', 'unknown-url.case.json');
    cpSync(file, join(directory, 'routing', 'renamed.case.json'));
    cpSync(join(directory, 'routing', 'unknown-url.response.json'), join(directory, 'routing', 'renamed.response.json'));
    expect(() => loadFixtures(directory)).toThrow(/id must be "routing\/renamed"/);
  });

  it('should fail on an engine event outside the ChatEngineEvent union', () => {
    const directory = copyFixtures();
    writeFileSync(join(directory, 'chat', 'text-json.engine.jsonl'), '{"type":"content","delta":"hi"}\n');
    expect(() => loadFixtures(directory)).toThrow(/text-json\.engine\.jsonl:1/);
  });
});
