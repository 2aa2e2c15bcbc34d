/**
 * Starts the service: reads the settings, the catalog and the tokens, starts the session manager,
 * listens, and on SIGINT or SIGTERM closes everything so that no application process is left behind.
 */
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { buildApp } from './app.ts';
import { prepareAppBundles } from './runners/app-bundles.ts';
import { repoRoot } from './runners/local-spawn.ts';
import { banner } from './banner.ts';
import { OidcVerifier } from './auth/oidc.ts';
import { TokenStore, TokensError } from './auth/tokens.ts';
import { CatalogError, loadCatalog } from './catalog/load-catalog.ts';
import { ConfigError, loadConfig, portalOrigins } from './config.ts';
import { logDestination } from './log-output.ts';
import { warmTargets } from './catalog/queries.ts';
import { createSessionManager } from './sessions/manager.ts';
import { AuditLog } from './audit/audit-log.ts';
import { ServiceSandbox } from './runners/service-sandbox.ts';
import { findSandboxKit } from '../sandbox/availability.ts';
import { sweepStaleDisplays } from '../sandbox/leftovers.ts';
import { stillDirOf, tidyStills } from './runners/still-files.ts';
import type { Runner, SessionLogger } from './runners/runner.ts';
import { LocalRunner } from './runners/local.ts';
import { SlurmRunner } from './runners/slurm.ts';
import type { ServiceConfig } from './config.ts';
import { startDoor, type OpenDoor } from './door/start-door.ts';

/** How long POST /stream waits for a session to be ready before answering 202. */
const READY_WAIT_MS = 2_000;
/** A failed session answers 410 this long (CONTRACT section 11). */
const FAILED_RETENTION_MS = 10 * 60_000;
const STOP_GRACE_MS = 5_000;

/**
 * The runner STREAMGATE_RUNNER names: `local` runs each session's application on this machine, as many at once
 * as it has GPUs; `slurm` makes each session a job of the cluster (a batch job, or an srun step), whose queue is
 * the queue.
 */
function runnerOf(config: ServiceConfig, sandbox: ServiceSandbox, logger: SessionLogger): Runner {
  if (config.runner === 'slurm') {
    return new SlurmRunner({
      dir: config.slurmDir ?? '',
      launch: config.slurmLaunch,
      portRange: config.portRange,
      stopGraceMs: STOP_GRACE_MS,
      // Real programs run sandboxed on the nodes too; only the tests' stand-ins ever run without.
      sandboxed: sandbox.seccomp !== null || sandbox.refusal !== null,
      logger,
    });
  }
  return new LocalRunner({
    publicHost: config.publicHost,
    portRange: config.portRange,
    capacity: config.capacity,
    logDir: path.join(config.dataDir, 'logs'),
    stopGraceMs: STOP_GRACE_MS,
    sandbox,
    logger,
  });
}

async function main(): Promise<void> {
  const config = loadConfig();
  const catalog = await loadCatalog(config.catalogPath);
  const tokens = config.tokensPath ? await TokenStore.load(config.tokensPath) : null;
  // The identity provider's discovery document and keys, read now: start-up stops with one sentence when not.
  const oidc = config.oidc ? await OidcVerifier.discover(config.oidc) : null;
  // Found before anything starts: real programs run sandboxed, or are refused with this sentence.
  const sandbox = await ServiceSandbox.prepare(config.dataDir, await findSandboxKit());
  // The app's logger exists only once the app is built, and the app needs the manager first.
  const sink: { log?: SessionLogger } = {};
  const logger: SessionLogger = {
    info: (fields, message) => sink.log?.info(fields, message),
    warn: (fields, message) => sink.log?.warn(fields, message),
    error: (fields, message) => sink.log?.error(fields, message),
  };
  const runner = runnerOf(config, sandbox, logger);
  const manager = createSessionManager(
    {
      dataDir: config.dataDir,
      runner,
      queueLimit: config.queueLimit,
      publicHost: config.publicHost,
      readyWaitMs: READY_WAIT_MS,
      failedRetentionMs: FAILED_RETENTION_MS,
      viewerOrigins: portalOrigins(config),
      warm: warmTargets(catalog),
      userGpuShare: config.userGpuShare ?? null,
    },
    logger,
  );
  // Closed after the manager has stopped: the sessions a stop ends are audited too.
  const audit = new AuditLog(config.dataDir, {
    onError: (error) => logger.error({ err: error.message }, 'Could not write the audit log'),
  });
  const logStream = logDestination();
  // The door opens before the app exists (the app serves it): its lines wait for the app's logger.
  const doorSink: { log?: Pick<FastifyBaseLogger, 'debug' | 'info' | 'warn' | 'error'> } = {};
  const early: (() => void)[] = [];
  const doorLine =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (fields: object, message: string): void => {
      const write = () => doorSink.log?.[level](fields, message);
      if (doorSink.log) write();
      else early.push(write);
    };
  const opened: OpenDoor = await startDoor(config, {
    // coturn's own routine lines: there when LOG_LEVEL=debug asks.
    debug: doorLine('debug'),
    info: doorLine('info'),
    warn: doorLine('warn'),
    error: doorLine('error'),
  });
  const app = await buildApp(config, {
    catalog,
    manager,
    tokens,
    oidc,
    audit,
    processMetrics: true,
    door: opened.door,
    // Where the runner places applications (a cluster's nodes), as Slurm knows them now.
    connectSources: await runner.connectSources(),
    ...(logStream ? { logStream } : {}),
  });
  sink.log = app.log.child({ component: 'sessions' });
  doorSink.log = app.log.child({ component: 'door' });
  for (const write of early.splice(0)) write();
  if (sandbox.refusal) app.log.warn(`Real programs are refused: ${sandbox.refusal}`);
  else app.log.info('Real programs run sandboxed (bubblewrap, a user, limits and no network of their own)');
  // Before any session starts (restored ones included), so that every launch runs the bundles.
  await prepareAppBundles(repoRoot, (message) => app.log.warn(message));
  await manager.start();
  // What X servers of hosts killed with a former service left behind (in use by adopted sessions: kept).
  const swept = sweepStaleDisplays();
  if (swept.length > 0) app.log.info({ removed: swept }, 'Removed what stopped displays left behind');
  // Stills of sessions that ended while no service watched their applications.
  const stills = stillDirOf(config.dataDir);
  await tidyStills(stills, (id) => manager.get(id) !== undefined).catch(() => undefined);

  let closing: Promise<void> | undefined;
  const shutdown = (reason: string, code: number) => {
    closing ??= (async () => {
      app.log.info({ reason }, 'stopping');
      try {
        await app.close();
      } finally {
        await opened.close().catch(() => undefined);
        await manager.stop();
        await audit.close();
        // Every application has stopped: no still is left to show (those adopted at start included).
        await tidyStills(stills, () => false).catch(() => undefined);
      }
    })()
      .catch((error: unknown) => {
        app.log.error({ err: error }, 'could not stop cleanly');
        code = 1;
      })
      .finally(() => process.exit(code));
  };
  process.on('SIGINT', () => shutdown('SIGINT', 0));
  process.on('SIGTERM', () => shutdown('SIGTERM', 0));
  // Started by `npm start` (scripts/start.ts) over an IPC channel: when the launcher is gone, however it
  // ended, so is the reason to run.
  if (process.send) process.once('disconnect', () => shutdown('launcher gone', 0));
  process.on('uncaughtException', (error) => {
    app.log.fatal({ err: error }, 'uncaught exception');
    shutdown('uncaught exception', 1);
  });

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await opened.close().catch(() => undefined);
    await manager.stop();
    await audit.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  console.log(
    banner({
      ...config,
      port,
      apps: catalog.apps.length,
      profiles: catalog.profiles.length,
      terminal: Boolean(process.stdout.isTTY),
      door: {
        ...opened.door.figures(),
        ...(config.door?.turn.kind === 'embedded' ? { turnPort: config.door.turn.port } : {}),
      },
    }),
  );
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof CatalogError || error instanceof TokensError;
  const code = (error as NodeJS.ErrnoException).code;
  const message = known
    ? (error as Error).message
    : code === 'EADDRINUSE'
      ? 'The port is already in use: set PORT to a free one.'
      : `Could not start: ${(error as Error).message}`;
  console.error(`streamgate: ${message}`);
  process.exit(1);
});
