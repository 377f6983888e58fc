import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type ValidatorBuilder = NonNullable<CompilersFactory['buildValidator']>;
type SerializerBuilder = NonNullable<CompilersFactory['buildSerializer']>;

/**
 * Fastify's own schema compilers (ajv for validation, fast-json-stringify for responses),
 * required from Fastify's install the first time a route with a schema is compiled. Fastify
 * requires both as it is created, about 3 MiB, and the server declares no route schema (its
 * inputs go through the core's and the admin API's zod schemas): only a plugin's route would
 * load them.
 *
 * @example
 * Fastify({ schemaController: schemaCompilersOnFirstUse() });
 */
export function schemaCompilersOnFirstUse(): NonNullable<FastifyServerOptions['schemaController']> {
  // Fastify's dependencies, resolved where Fastify itself resolves them.
  const fromFastify = () => createRequire(createRequire(import.meta.url).resolve('fastify'));
  let validator: ValidatorBuilder | undefined;
  let serializer: SerializerBuilder | undefined;
  return {
    compilersFactory: {
      buildValidator: (externalSchemas, options) => {
        validator ??= (fromFastify()('@fastify/ajv-compiler') as () => ValidatorBuilder)();
        return validator(externalSchemas, options);
      },
      buildSerializer: (externalSchemas, options) => {
        serializer ??= (fromFastify()('@fastify/fast-json-stringify-compiler') as () => SerializerBuilder)();
        return serializer(externalSchemas, options);
      },
    },
  };
}
