import type { ServiceStore, StoreAccessControl } from '@quantum-chat/access-control';
import type { FastifyInstance } from 'fastify';
import type { ServerConfig } from '../config-schema.js';
import { adminBasePath } from './admin-openapi.js';
import { adminApiRoutes } from './admin-routes.js';
import { createAdminService } from './admin-service.js';
import { createAdminTokenThrottle } from './admin-token-throttle.js';
import { createAdminTokenVerifier } from './admin-tokens.js';
import { configuredModelIds } from './configured-model-ids.js';

export interface AdminApiContext {
  store: ServiceStore;
  accessControl: StoreAccessControl;
  now?: () => number;
}

/**
 * Mounts the admin API at `/admin/v1` when the config has admin tokens (else nothing: its
 * paths answer 404 like any unknown path). Every action is written to the store's audit log
 * and logged as `admin action`, with the token's id, never a secret.
 *
 * @example
 * await registerAdminApi(app, config, { store, accessControl });
 */
export async function registerAdminApi(app: FastifyInstance, config: ServerConfig, context: AdminApiContext): Promise<boolean> {
  if (config.adminTokens.length === 0) return false;
  const service = createAdminService({
    store: context.store,
    modelIds: configuredModelIds(config),
    ...(context.now !== undefined ? { now: context.now } : {}),
    // A usage report includes what this instance has not written yet.
    flushUsage: () => context.accessControl.ledger.flush(),
    onAudit: (entry, stored, error) => {
      if (stored) app.log.info({ audit: entry }, 'admin action');
      else app.log.error({ err: error, audit: entry }, 'admin action not written to the audit log');
    },
  });
  await app.register(adminApiRoutes, { prefix: adminBasePath, service, verifyToken: createAdminTokenVerifier(config.adminTokens), throttle: createAdminTokenThrottle(config.adminTokenFailuresPerMinute) });
  app.log.info({ tokens: config.adminTokens.map((token) => token.id) }, `admin API on at ${adminBasePath}`);
  return true;
}
