// An "existing" Express app: a landing page, a login with cookie sessions, an account page
// and a request log. It mounts the Quantum chat API at /v1 and hands its users API keys for it.
import { createAccessControl, createMemoryStore, issueApiKey, type ServiceStore } from '@quantum-chat/access-control';
import { createChatHandler, type ChatEngine } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { createExpressRouter, quantumChatErrorHandler } from '@quantum-chat/express';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { createSessions, readCookie } from './sessions.js';

export interface AppOptions {
  /** username → password of the app's own users. */
  users: Readonly<Record<string, string>>;
  /** Where the request log goes; one line per request. */
  log?: (line: string) => void;
  engine?: ChatEngine;
  /** The API's key store; in memory by default (use `createSqliteStore` to keep keys). */
  store?: ServiceStore;
}

export interface App {
  app: Express;
  store: ServiceStore;
}

const sessionCookie = 'sid';

export function createApp(options: AppOptions): App {
  const log = options.log ?? ((line: string) => console.log(line));
  const sessions = createSessions(options.users);
  const store = options.store ?? createMemoryStore();
  const app = express();
  app.disable('x-powered-by');

  // Logging: one line per request, the mounted API included.
  app.use((req, res, next) => {
    const started = performance.now();
    res.on('finish', () => {
      const user = sessions.userOf(readCookie(req.headers.cookie, sessionCookie)) ?? '-';
      log(`${req.method} ${req.originalUrl} ${res.statusCode} ${Math.round(performance.now() - started)}ms user=${user}`);
    });
    next();
  });

  // The API, mounted before the app's JSON parser so the core reads the raw body itself
  // (request signatures and the UTF-8 check need the bytes).
  const handler = createChatHandler({
    engine: options.engine ?? createReferenceEngine(),
    accessControl: createAccessControl({ store }),
    onRequestSettled: (record) =>
      log(`chat ${record.requestId} org=${record.principal?.organisationId ?? '-'} model=${record.model} status=${record.status} tokens=${record.promptTokens}+${record.completionTokens}`),
  });
  app.use('/v1', createExpressRouter({ handler, onBridgeError: (error) => log(`chat bridge failed: ${String(error)}`) }));
  app.use('/v1', quantumChatErrorHandler);

  // The app's own routes.
  app.use(express.json({ limit: '16kb' }));

  function requireUser(req: Request, res: Response, next: NextFunction) {
    const user = sessions.userOf(readCookie(req.headers.cookie, sessionCookie));
    if (user === undefined) {
      res.status(401).json({ message: 'Log in first.' });
      return;
    }
    res.locals.user = user;
    next();
  }

  app.get('/', (_req, res) => {
    res.type('html').send('<h1>Acme notes</h1><p>The chat API lives at <code>/v1</code>. Log in and create a key at <code>POST /account/api-keys</code>.</p>');
  });
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.post('/login', (req, res) => {
    const { username, password } = (req.body ?? {}) as { username?: unknown; password?: unknown };
    const sessionId = typeof username === 'string' && typeof password === 'string' ? sessions.login(username, password) : undefined;
    if (sessionId === undefined) {
      res.status(401).json({ message: 'Wrong username or password.' });
      return;
    }
    res.cookie(sessionCookie, sessionId, { httpOnly: true, sameSite: 'lax', path: '/' }).json({ username });
  });
  app.post('/logout', requireUser, (req, res) => {
    sessions.logout(readCookie(req.headers.cookie, sessionCookie)!);
    res.clearCookie(sessionCookie, { path: '/' }).status(204).end();
  });
  app.get('/account', requireUser, (_req, res) => {
    res.json({ username: res.locals.user });
  });
  // Each user is an organisation of the API; a key is shown once.
  app.post('/account/api-keys', requireUser, async (_req, res, next) => {
    try {
      const organisation = res.locals.user as string;
      if ((await store.getOrganisation(organisation)) === undefined) await store.createOrganisation({ name: organisation, plan: 'elite' });
      const { key } = await issueApiKey(store, { organisation, kind: 'live' });
      res.status(201).json({ key });
    } catch (error) {
      next(error);
    }
  });

  app.use((_req, res) => {
    res.status(404).json({ message: 'Not found.' });
  });
  return { app, store };
}
