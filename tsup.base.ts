// The build every published package shares: each package's tsup.config.ts names its entries
// (and whatever it alone needs) and takes the rest from here, so the packages cannot drift apart.
import { defineConfig, type Options } from 'tsup';

/** The JavaScript the packages ship: Node 20's level, which every supported runtime reads. */
export const buildTarget = 'es2022';

/** A library's build: ESM and CommonJS side by side, each with its types (.d.ts / .d.cts) and source maps. */
export const libraryOptions = {
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: buildTarget,
} satisfies Options;

/** One library build: the shared options, then the package's own (its entries, shims, externals). */
export function defineLibraryConfig(options: Options & Pick<Required<Options>, 'entry'>) {
  return defineConfig({ ...libraryOptions, ...options });
}
