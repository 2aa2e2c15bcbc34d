/**
 * Builds the service: the API under /api, the portal at /, health and metrics. It does not listen;
 * server/main.ts does, and tests call `app.inject()`.
 */
import fastifyCors from '@fastify/cors';
import pino, { type DestinationStream } from 'pino';
import Fastify, { LogController, type FastifyInstance, type FastifyReply } from 'fastify';
import type { OidcVerifier } from './auth/oidc.ts';
import type { TokenStore } from './auth/tokens.ts';
import { adminRoutes } from './routes/admin.ts';
import { AuditLog } from './audit/audit-log.ts';
import { auditSessionEnds } from './audit/session-ends.ts';
import { auditRoutes } from './routes/audit.ts';
import { imageOrigins } from './catalog/images.ts';
import type { Catalog } from './catalog/model.ts';
import type { ServiceConfig } from './config.ts';
import { auth } from './http/auth-hook.ts';
import { bodyDeadline } from './http/body-deadline.ts';
import { catalogImages } from './routes/catalog-images.ts';
import { clientErrorHandler } from './http/client-errors.ts';
import { BODY_LIMIT, errorHandler, refuseDeclaredOversize } from './http/error-handler.ts';
import { recordApiRoutes } from './http/known-routes.ts';
import { metrics } from './routes/metrics.ts';
import { portal } from './routes/portal.ts';
import { RateLimiter } from './http/rate-limit.ts';
import { logRequest } from './http/request-log.ts';
import { securityHeaders } from './http/security-headers.ts';
import { cfgRoutes } from './routes/cfg.ts';
import { doorRoutes } from './routes/door.ts';
import { fileRoutes } from './routes/files.ts';
import { Door } from './door/door.ts';
import { loadDoorConfig } from './door/door-config.ts';
import { streamRoutes } from './routes/stream.ts';
import { stillDirOf } from './runners/still-files.ts';
import type { SessionManager } from './sessions/types.ts';

/** What the app uses but does not build itself, so that tests can choose each part. */
export interface AppDeps {
  catalog: Catalog;
  manager: SessionManager;
  /** null, and no `oidc` either: no authentication. */
  tokens: TokenStore | null;
  /** The site's identity provider, discovered at start (CONTRACT §22); null or absent: none. */
  oidc?: OidcVerifier | null;
  /** Node process metrics (event loop, memory) in /metrics; off in tests, where apps share one process. */
  processMetrics?: boolean;
  /** Where JSON log lines go; standard output by default. */
  logStream?: DestinationStream;
  /** The door (CONTRACT §21): its relay and media door; absent: signaling through the service, no relay. */
  door?: Door;
  /** Where the portal's pages reach applications beyond the public host: the runner's (`Runner.connectSources`). */
  connectSources?: readonly string[];
  /**
   * The audit log (CONTRACT §22), which its owner closes after the manager has stopped (so that the sessions a
   * stop ends are in it); absent: one in the data directory, flushed when the app closes.
   */
  audit?: AuditLog;
}

/**
 * Time-outs that cut off slow clients (slowloris): the headers must arrive within 10 s and the whole
 * request within 30 s; a connection silent for 30 s is closed. Node checks the headers every second; the whole
 * request is the service's to check (http/body-deadline.ts), so that uploads of a session's files may take longer.
 */
export const TIMEOUTS = {
  headersMs: 10_000,
  requestMs: 30_000,
  idleMs: 30_000,
  keepAliveMs: 5_000,
  checkEveryMs: 1_000,
};

/** Builds the Fastify app; it is ready to `inject()` or `listen()` once the promise resolves. */
export async function buildApp(config: ServiceConfig, deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger:
      config.logLevel === 'silent'
        ? false
        : {
            level: config.logLevel,
            // Buffered while a write is under way, so a busy service makes few write calls rather than
            // one per line; pino flushes what is left when the process exits.
            stream: deps.logStream ?? pino.destination({ dest: 1, sync: false }),
            // Tokens never reach a log line, whatever a serializer may print one day.
            redact: ['req.headers.authorization', 'headers.authorization'],
          },
    // One line per request is written below (request-log.ts), with everything a reader needs.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    // Behind the site's reverse proxy, the client's address and host are the ones it forwards.
    ...(config.trustProxy?.length ? { trustProxy: config.trustProxy } : {}),
    // Versions with pre-release and build parts can be long; the contract allows 256 characters.
    routerOptions: { maxParamLength: 1024 },
    http: {
      headersTimeout: TIMEOUTS.headersMs,
      // Node's would hold every request, a long upload too, to TIMEOUTS.requestMs: bodyDeadline does instead.
      requestTimeout: 0,
      connectionsCheckingInterval: TIMEOUTS.checkEveryMs,
    },
    requestTimeout: 0,
    connectionTimeout: TIMEOUTS.idleMs,
    keepAliveTimeout: TIMEOUTS.keepAliveMs,
    clientErrorHandler,
    // A malformed percent-encoding in a path is the caller's mistake, not a server error.
    frameworkErrors: (_error, _request, reply) => {
      void (reply as FastifyReply)
        .code(404)
        .send({ detail: 'The address is malformed; check its percent-encoding.' });
    },
  });
  app.setErrorHandler(errorHandler);
  const allowedMethods = recordApiRoutes(app);

  app.addHook('onRequest', refuseDeclaredOversize);
  app.addHook('onRequest', bodyDeadline(TIMEOUTS.requestMs));
  // One line per request, with everything a reader needs, written as its answer ends.
  app.addHook('onResponse', logRequest);

  if (config.corsOrigins.length > 0) {
    await app.register(fastifyCors, {
      origin: config.corsOrigins,
      methods: ['GET', 'POST', 'PUT', 'DELETE'],
      // A portal on another origin reads the door's viewer resource and relays (CONTRACT §21).
      exposedHeaders: ['Location', 'Link', 'Retry-After', 'Content-Disposition'],
    });
  }
  await app.register(securityHeaders, {
    publicHost: config.publicHost,
    // The site's own (STREAMGATE_CSP_CONNECT), the runner's nodes where its applications run, and the identity
    // provider's endpoints, with which the portal signs people in.
    extraConnect: [
      ...(config.cspConnect ?? []),
      ...(deps.connectSources ?? []),
      ...(deps.oidc?.connectOrigins ?? []),
    ],
    frameSources: deps.oidc?.frameOrigins ?? [],
    imageSources: imageOrigins(deps.catalog),
  });
  const { catalog, manager } = deps;
  // Before the auth hook, which records failed sign-ins in it.
  const audit =
    deps.audit ??
    new AuditLog(config.dataDir, {
      onError: (error) => app.log.error({ err: error.message }, 'Could not write the audit log'),
    });
  if (!deps.audit) app.addHook('onClose', () => audit.close());
  auditSessionEnds(manager, audit);
  await app.register(auth, { tokens: deps.tokens, oidc: deps.oidc ?? null, audit });
  const door = deps.door ?? new Door(config.door ?? loadDoorConfig({}), null, null, config.publicHost);
  await app.register(metrics, { manager, processMetrics: deps.processMetrics ?? false, door });
  app.get('/healthz', async () => ({ status: 'ok' }));

  // Each route takes its schemas from the contract and Ajv checks requests against them (http/contract.ts).
  await app.register(cfgRoutes, { prefix: '/api', catalog });
  await app.register(streamRoutes, {
    prefix: '/api',
    catalog,
    manager,
    publicHost: config.publicHost,
    limiter: config.rateLimit ? new RateLimiter(config.rateLimit) : null,
    userLimit: config.userLimit ?? null,
    stillDir: stillDirOf(config.dataDir),
    door,
    audit,
  });
  await app.register(doorRoutes, { prefix: '/api', manager, door, publicHost: config.publicHost });
  await app.register(fileRoutes, { prefix: '/api', manager, publicHost: config.publicHost, audit });
  await app.register(adminRoutes, { prefix: '/api', manager, catalog, door });
  await app.register(auditRoutes, { prefix: '/api', audit });
  await app.register(catalogImages, { catalog, catalogFile: config.catalogPath });
  await app.register(portal, {
    staticDir: config.staticDir,
    allowedMethods,
    ...(config.door ? { signaling: config.door.signaling } : {}),
    ...(config.oidc
      ? { auth: { issuer: config.oidc.issuer, client_id: config.oidc.clientId, scopes: config.oidc.scopes } }
      : {}),
  });
  await app.ready();
  return app;
}
