import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultFixturesDirectory, loadFixtures } from '../src/index.js';

const copies: string[] = [];

/** A small copy of the fixtures: four areas, one of them client-only. */
function copyFixtures(): string {
  const directory = mkdtempSync(join(tmpdir(), 'conformance-fixtures-'));
  copies.push(directory);
  for (const area of ['routing', 'dialects', 'chat', 'responses']) cpSync(join(defaultFixturesDirectory, area), join(directory, area), { recursive: true });
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

  it('should keep Responses streams apart from the chat streams clients replay', () => {
    const { cases, clientFixtures, responsesStreamFixtures } = loadFixtures();
    expect(cases.filter((testCase) => testCase.api === 'responses').length).toBeGreaterThan(20);
    expect(responsesStreamFixtures.map((fixture) => fixture.id)).toContain('responses/text-stream');
    expect(clientFixtures.some((fixture) => fixture.id.startsWith('responses/'))).toBe(false);
  });

  it('should fail on a {{name}} no earlier step saves', () => {
    const directory = copyFixtures();
    const file = join(directory, 'responses', 'retrieve-stored.case.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"/responses/{{id}}"', '"/responses/{{other}}"'));
    expect(() => loadFixtures(directory)).toThrow(/retrieve-stored\.case\.json: request uses \{\{other\}\}/);
  });

  it('should fail on a Responses stream fixture that breaks decisions §10', () => {
    const directory = copyFixtures();
    const file = join(directory, 'responses', 'text-stream.response.sse');
    writeFileSync(file, `${readFileSync(file, 'utf8')}data: [DONE]\n\n`);
    expect(() => loadFixtures(directory)).toThrow(/text-stream\.response\.sse: not a Responses stream[\s\S]*no \[DONE\]/);
  });
});
