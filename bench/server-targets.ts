/**
 * What bench/server.ts runs: the service's catalog and the loop that ends its queued sessions through the API,
 * and the reference it measures the service against, run in a child process of its own:
 * `--serve-bare`, node:http answering the service's own bytes (on a second port, also writing each POST to disk
 * before its answer). It answers `cpu` messages with the CPU time used. The service itself is started as the
 * real program (bench/service.ts), never from its modules.
 */
import { closeSync, fdatasync, ftruncateSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { standInCatalog } from './service.ts';

/** The first of the ports the bench listens on (BENCH_PORT moves them all, for a machine where they are taken). */
const BASE_PORT = Number(process.env.BENCH_PORT ?? 18090);
export const APP_PORT = BASE_PORT;
export const BARE_PORT = BASE_PORT + 1;
export const BARE_DURABLE_PORT = BASE_PORT + 3;
/** The service with a tokens file and an identity provider, and the identity provider (a real OpenID provider). */
export const SIGNED_IN_PORT = BASE_PORT + 5;
export const ISSUER_PORT = BASE_PORT + 6;
/** Ports of the sessions: the stand-in that holds the GPU takes one pair. */
export const SESSION_PORTS = `${BASE_PORT + 190}-${BASE_PORT + 199}`;

/** The service's catalog: the application the load asks for, and the stand-in that holds the only GPU. */
export const CATALOG = standInCatalog(`  - id: usd-viewer
    name: USD Viewer
    description: Explore USD stages in a lightweight viewer (the sample application stands in for it).
    tags: [viewer, usd]
    versions:
      - version: 1.2.0
        description: Stable release.
`);

/**
 * Ends the queued sessions every 10 ms through the API, as a user's program would: the list, then a DELETE
 * each (at most 8 at once). Returns the function that stops it.
 */
export function startReaper(base: string, keep: string): () => Promise<void> {
  let running = true;
  const loop = (async () => {
    while (running) {
      const list = (await (await fetch(`${base}/api/stream?limit=500`)).json()) as {
        items: { id: string }[];
      };
      const ids = list.items.map((s) => s.id).filter((id) => id !== keep);
      for (let i = 0; i < ids.length; i += 8) {
        const ends = ids.slice(i, i + 8).map((id) => fetch(`${base}/api/stream/${id}`, { method: 'DELETE' }));
        await Promise.all(ends);
      }
      await sleep(10);
    }
  })();
  return async () => {
    running = false;
    await loop;
  };
}

/** The service's answers, replayed byte for byte by the bare server. */
export interface Canned {
  getBody: string;
  postBody: string;
}

/** The bare server's CPU time, on the parent's asking. */
function answerCpu(): void {
  process.on('message', (message) => {
    if (message !== 'cpu') return;
    const { user, system } = process.cpuUsage();
    process.send?.({ cpu: user + system });
  });
}

/**
 * The least a server can do to keep each POST on disk before its answer: append one line to a file
 * and sync it, one data sync shared by the requests that arrive while the one before runs (group
 * commit; the service's state store shares its writes alike). The file is emptied past 4 MiB.
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

if (process.argv[2] === '--serve-bare') serveBare(JSON.parse(process.env.BENCH_CANNED ?? '{}') as Canned);
