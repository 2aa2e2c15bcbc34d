/**
 * The servers that bench/server.ts measures, each run in a child process of its own:
 * `--serve-app` (the service, and the same HTTP layer over in-memory sessions) and `--serve-bare`
 * (node:http answering the service's own bytes; on a second port, also writing each POST to disk
 * before its answer). They answer `cpu` messages with the CPU time used.
 */
import { closeSync, fdatasync, ftruncateSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Session } from '../server/sessions/session.ts';
import type { SessionManager, SessionRecord } from '../server/sessions/types.ts';
import { ServiceSandbox } from '../server/runners/service-sandbox.ts';

/** The first of the ports the bench listens on (BENCH_PORT moves them all, for a machine where they are taken). */
const BASE_PORT = Number(process.env.BENCH_PORT ?? 18090);
export const APP_PORT = BASE_PORT;
export const BARE_PORT = BASE_PORT + 1;
export const LAYER_PORT = BASE_PORT + 2;
export const BARE_DURABLE_PORT = BASE_PORT + 3;
/** Ports of the sessions: the stand-in that holds the GPU takes one pair. */
const SESSION_PORTS = { first: BASE_PORT + 190, last: BASE_PORT + 199 };

/** The service's answers, replayed byte for byte by the bare server. */
export interface Canned {
  getBody: string;
  postBody: string;
}

/** Sessions the real manager accepted: create() resolves only once the session is on disk. */
let accepted = 0;

/**
 * Children report the CPU time they have used, so that cost per request can be told from contention,
 * and the sessions accepted so far.
 */
function answerCpu(): void {
  process.on('message', (message) => {
    if (message !== 'cpu') return;
    const { user, system } = process.cpuUsage();
    process.send?.({ cpu: user + system, accepted });
  });
}

/** Sessions kept in a Map and never started: only for the HTTP-layer-only row of the figures. */
function memoryManager(): SessionManager {
  const records = new Map<string, SessionRecord>();
  return {
    async start() {},
    async create(request) {
      // The record the real manager makes for a queued session, with the message it would show.
      const { record } = Session.create(request, 0);
      record.message = "Waiting for a free GPU: you're next";
      // Forgotten at once, so that memory stays flat however long the run.
      return record;
    },
    get: (id) => records.get(id),
    list: () => ({ count: 0, items: [] }),
    async end(id) {
      records.delete(id);
    },
    async issueTicket() {
      return undefined;
    },
    async stopSharing() {
      return undefined;
    },
    activeCount: () => 0,
    counts: () => ({ pending: 0, ready: 0, failed: 0, queued: 0, warm: 0 }),
    capacity: () => ({ capacity: 1, running: 0, warm: 0, queued: 0, by_profile: [] }),
    async stop() {},
  };
}

/** Child: the real service on the repository catalog, with a manager that queues and never starts. */
async function serveApp(): Promise<void> {
  const { buildApp } = await import('../server/app.ts');
  const { loadCatalog } = await import('../server/catalog/load-catalog.ts');
  const { loadConfig } = await import('../server/config.ts');
  const { createSessionManager } = await import('../server/sessions/manager.ts');
  const { DEFAULT_SETTINGS } = await import('../server/catalog/model.ts');
  const { standInCommand } = await import('../test-support/session-support.ts');
  const dataDir = await mkdtemp(path.join(tmpdir(), 'streamgate-bench-'));
  // No per-caller rate limit: every request of the load is one caller, and a 429 is not an accepted session.
  const config = {
    ...loadConfig({ LOG_LEVEL: 'info', STREAMGATE_RATE_LIMIT: 'off' }),
    port: APP_PORT,
    dataDir,
  };
  const real = createSessionManager({
    dataDir,
    portRange: SESSION_PORTS,
    capacity: 1,
    queueLimit: 1_000_000,
    publicHost: '127.0.0.1',
    readyWaitMs: 0,
    failedRetentionMs: 60_000,
    stopGraceMs: 1_000,
    sandbox: ServiceSandbox.unsandboxedForTests(),
  });
  await real.start();
  /** Sessions answered since the reaper last ran: it ends each once its answer has gone. */
  let answered: string[] = [];
  const manager: SessionManager = {
    ...real,
    async create(request) {
      const record = await real.create(request);
      accepted++;
      answered.push(record.id);
      return record;
    },
  };
  // The one GPU is taken by a long-lived stand-in application, so every POST queues and answers 202.
  const holder = await manager.create({
    owner: 'bench',
    app: { id: 'holder', name: 'GPU holder' },
    version: '1.0.0',
    profile: { id: 'default', name: 'Default', settings: { ...DEFAULT_SETTINGS, idleTimeoutMs: 3_600_000 } },
    launch: { command: standInCommand() },
    arguments: {},
  });
  const app = await buildApp(config, {
    catalog: await loadCatalog(config.catalogPath),
    manager,
    tokens: null,
  });
  // Only sessions already answered are ended: one still waiting for its write would be gone before it
  // was encoded, which would spare the service the very work it is measured on.
  const reaper = setInterval(() => {
    const ids = answered.filter((id) => id !== holder.id);
    answered = [];
    for (const id of ids) void manager.end(id);
  }, 10);
  await app.listen({ port: APP_PORT, host: '127.0.0.1' });
  // The same HTTP layer over a manager that only keeps records in memory: it tells the cost of the
  // HTTP layer apart from that of the session machinery (queue, durable state) in the figures.
  const layerOnly = await buildApp(
    { ...config, logLevel: 'info' },
    { catalog: await loadCatalog(config.catalogPath), manager: memoryManager(), tokens: null },
  );
  await layerOnly.listen({ port: LAYER_PORT, host: '127.0.0.1' });
  answerCpu();
  process.send?.('ready');
  const stop = () => {
    clearInterval(reaper);
    void Promise.all([app.close(), layerOnly.close()])
      .then(() => manager.stop())
      .finally(() => rm(dataDir, { recursive: true, force: true }).finally(() => process.exit(0)));
  };
  process.once('disconnect', stop);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/**
 * The least a server can do to keep each POST on disk before its answer: append one line to a file
 * and sync it, one data sync shared by the requests that arrive while the one before runs (group
 * commit, as the service's state store does). The file is emptied past 4 MiB, as the store's journal is.
 */
function groupCommit(file: string): (line: string, done: () => void) => void {
  const fd = openSync(file, 'a', 0o600);
  let waiting: (() => void)[] = [];
  let syncing = false;
  let bytes = 0;
  const sync = () => {
    syncing = true;
    const batch = waiting;
    waiting = [];
    fdatasync(fd, (error) => {
      if (error) throw error;
      if (bytes > 4 * 1024 * 1024) {
        ftruncateSync(fd, 0);
        bytes = 0;
      }
      for (const done of batch) done();
      if (waiting.length > 0) sync();
      else syncing = false;
    });
  };
  process.on('exit', () => closeSync(fd));
  return (line, done) => {
    bytes += writeSync(fd, line);
    waiting.push(done);
    if (!syncing) sync();
  };
}

/**
 * Child: node:http answering the service's own bytes, given by the parent; on BARE_DURABLE_PORT it
 * also writes each POST's answer to disk, synced, before it sends it.
 */
function serveBare(canned: Canned): void {
  const directory = mkdtempSync(path.join(tmpdir(), 'streamgate-bench-bare-'));
  process.on('exit', () => rmSync(directory, { recursive: true, force: true }));
  const append = groupCommit(path.join(directory, 'journal'));
  const serverFor = (durable: boolean) =>
    createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const post = request.method === 'POST';
        const body = post ? canned.postBody : canned.getBody;
        const answer = () => {
          response.writeHead(post ? 202 : 200, {
            'content-type': 'application/json; charset=utf-8',
            'content-length': Buffer.byteLength(body),
          });
          response.end(body);
        };
        if (durable && post) append(`${body}\n`, answer);
        else answer();
      });
    });
  const servers = [
    { server: serverFor(false), port: BARE_PORT },
    { server: serverFor(true), port: BARE_DURABLE_PORT },
  ];
  answerCpu();
  void Promise.all(
    servers.map(
      ({ server, port }) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
    ),
  ).then(() => process.send?.('ready'));
  process.on('disconnect', () => {
    void Promise.all(servers.map(({ server }) => new Promise((resolve) => server.close(resolve)))).then(() =>
      process.exit(0),
    );
  });
}

const mode = process.argv[2];
if (mode === '--serve-app') {
  await serveApp();
} else if (mode === '--serve-bare') {
  serveBare(JSON.parse(process.env.BENCH_CANNED ?? '{}') as Canned);
}
