// Prints vitest's JSON results as one plain closing line: "N passed, N failed, N skipped".
import { readFileSync } from 'node:fs';

const file = process.argv[2];
let results;
try {
  results = JSON.parse(readFileSync(file, 'utf8'));
} catch {
  console.log(`no test results at ${file}`);
  process.exit(1);
}
const skipped = (results.numPendingTests ?? 0) + (results.numTodoTests ?? 0);
console.log(`tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped`);
