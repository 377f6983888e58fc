// ESLint for the whole repository: `pnpm lint` runs it once from the root over every package,
// app, example and script. The recommended rules of ESLint and typescript-eslint, plus the
// type-aware rules that catch misused promises; formatting is left alone.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { coreRoomRules } from './packages/core/eslint-rooms.js';
import { packageBoundaryRules } from './eslint.boundaries.js';

/** The files the packages' tsconfigs hold: these are linted with their types. */
const typedFiles = ['{packages,apps,examples,checks}/*/{src,test}/**/*.{ts,mts,cts}'];

/**
 * A leading underscore marks a name kept on purpose: a field left out of a rest
 * (`const { id: _id, ...rest } = x`), a parameter a signature requires, a counting loop.
 */
const unusedVarsOptions = {
  argsIgnorePattern: '^_',
  varsIgnorePattern: '^_',
  caughtErrorsIgnorePattern: '^_',
  destructuredArrayIgnorePattern: '^_',
  ignoreRestSiblings: true,
};

export default defineConfig(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/.turbo/**',
      '**/coverage/**',
      '**/fixtures/**',
      '**/*.generated.*',
      '**/.data/**',
      '**/test-output/**',
    ],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module', globals: { ...globals.node } },
  },
  js.configs.recommended,
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' } },
  { files: ['**/*.{ts,mts,cts}'], extends: [tseslint.configs.recommended] },
  { files: ['**/*.{js,mjs,cjs}'], rules: { 'no-unused-vars': ['error', unusedVarsOptions] } },
  { files: ['**/*.{ts,mts,cts}'], rules: { '@typescript-eslint/no-unused-vars': ['error', unusedVarsOptions] } },
  {
    files: typedFiles,
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // `Promise.all(items.map((item) => item.close?.()))`: optional calls are the norm here.
      '@typescript-eslint/await-thenable': ['error', { allowMixedPromiseArrays: true }],
      '@typescript-eslint/no-for-in-array': 'error',
      '@typescript-eslint/no-implied-eval': 'error',
      '@typescript-eslint/only-throw-error': 'error',
    },
  },
  {
    // Test servers take `async (request, response) => …` handlers: a failure in one surfaces
    // as an unhandled rejection, which fails the vitest run.
    files: ['**/test/**/*.{ts,mts,cts}'],
    rules: { '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }] },
  },
  {
    // README examples are snippets shown verbatim (checks/packaging/src/readme-examples.mjs): they
    // name what a call returns without going on to use all of it.
    files: ['packages/*/examples/**/*.{ts,mts,cts}'],
    rules: { '@typescript-eslint/no-unused-vars': 'off' },
  },
  {
    // The interop suite drives four majors of the openai SDK, whose type declarations differ,
    // and reads what they return as wire JSON.
    files: ['checks/interop/test/**/*.{ts,mts,cts}'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  // The core's rooms and floors (packages/core/eslint-rooms.js, docs/architecture.md): a block
  // of its own per room, apart from the package-level rules.
  ...coreRoomRules,
  // Which package may import which, and through which entries (eslint.boundaries.js).
  { plugins: { '@typescript-eslint': tseslint.plugin } },
  ...packageBoundaryRules,
);
