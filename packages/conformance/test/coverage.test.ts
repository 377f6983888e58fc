import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultFixturesDirectory, loadFixtures, requirements } from '../src/index.js';

const fixtures = loadFixtures();
const requirementIds = new Set(Object.keys(requirements));

function coveredIds(side: 'server' | 'client'): Set<string> {
  const covers = side === 'server' ? fixtures.cases.flatMap((testCase) => testCase.covers) : fixtures.clientFixtures.flatMap((fixture) => fixture.covers);
  return new Set(covers);
}

describe('conformance coverage', () => {
  it('should cover every requirement with at least one fixture of its side', () => {
    const uncovered = Object.entries(requirements)
      .filter(([id, requirement]) => !coveredIds(requirement.side).has(id))
      .map(([id]) => id);
    expect(uncovered).toEqual([]);
  });

  it('should cite only known requirement ids, each from the right side', () => {
    const unknown = fixtures.cases.flatMap((testCase) => testCase.covers.filter((id) => requirements[id as keyof typeof requirements]?.side !== 'server').map((id) => `${testCase.id}: ${id}`));
    const unknownClient = fixtures.clientFixtures.flatMap((fixture) => fixture.covers.filter((id) => requirements[id as keyof typeof requirements]?.side !== 'client').map((id) => `${fixture.id}: ${id}`));
    expect([...unknown, ...unknownClient]).toEqual([]);
    expect(requirementIds.size).toBeGreaterThanOrEqual(40);
  });

  it('should use every fixture file (no orphans)', () => {
    const onDisk = readdirSync(defaultFixturesDirectory, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name).slice(defaultFixturesDirectory.length + 1))
      .filter((file) => file !== 'README.md')
      .sort();
    expect(onDisk).toEqual([...fixtures.files].sort());
  });

  it('should give every client stream an expected result that cites requirements', () => {
    for (const fixture of fixtures.clientFixtures) expect(fixture.covers.length, fixture.id).toBeGreaterThan(0);
  });
});
