import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the built pages live. `src/` and `dist/` both sit one level below the package, so
 * this resolves to `dist/static/` from either (tests run the source, the server the build).
 */
export const defaultStaticDirectory = fileURLToPath(new URL('../dist/static/', import.meta.url));

const contentTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** The only files served: a fixed list, so no request path ever reaches the file system. */
export const assetNames = ['playground.js', 'playground.js.map', 'docs.js', 'docs.js.map', 'usage.js', 'usage.js.map', 'styles.css', 'favicon.svg'] as const;

export interface StaticFile {
  body: Buffer | string;
  contentType: string;
}

/** The content type of a served file, from its extension. @internal */
function contentTypeOf(name: string): string {
  const extension = name.slice(name.lastIndexOf('.'));
  return contentTypes[extension] ?? 'application/octet-stream';
}

/**
 * Reads the assets once, the first time one is asked for: they do not change while the
 * server runs. A missing build fails loudly with what to run.
 *
 * @internal
 */
export function createStaticFiles(directory: string): { read(name: string): Promise<StaticFile> } {
  const cache = new Map<string, Promise<StaticFile>>();
  async function load(name: string): Promise<StaticFile> {
    try {
      return { body: await readFile(join(directory, name)), contentType: contentTypeOf(name) };
    } catch (error) {
      throw new Error(`@quantum-chat/web: ${join(directory, name)} is missing; build the package (pnpm turbo run build --filter=@quantum-chat/web).`, { cause: error });
    }
  }
  return {
    read(name) {
      let file = cache.get(name);
      if (file === undefined) {
        file = load(name);
        // A failed read is retried next time (the build may have finished since).
        file.catch(() => cache.delete(name));
        cache.set(name, file);
      }
      return file;
    },
  };
}
