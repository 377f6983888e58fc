// An idle node process that only answers its parent: the runtime's own memory floor, beside
// which the start-memory suite measures the servers.
import { serveParent } from '../lib/child.mjs';

process.on('SIGTERM', () => process.exit(0));
serveParent({});
