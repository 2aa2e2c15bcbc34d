/**
 * Requests per second of the service against a bare node:http server that answers the same bytes, in
 * the same run: GET /api/cfg/apps/{id}, and POST /api/stream answered 202. Also the CPU time each
 * server spends per request, a figure that load from other programs on the machine disturbs less. Last, the
 * same GET with an access token of the site's identity provider (CONTRACT §22: a JWT, verified once and then
 * remembered until it expires) against a static token of the tokens file, on one service that has both, with a
 * real OpenID provider (test-support/oidc-issuer.ts) in this process.
 *
 * Run: `npm run bench -- server` (about 2 min; BENCH_PORT=<n> moves its ports from 18090). The service is the
 * real program (`server/main.ts`, bench/service.ts) with its settings in its environment, as a user runs it; the
 * bare server runs in a child process of its own (bench/server-targets.ts) and the load comes from autocannon
 * in another, so no two share an event loop.
 *
 * POST is kept honest this way: the service's only GPU (STREAMGATE_CAPACITY=1) is held by a stand-in
 * application launched first, so every later session is queued and answered 202 at once without starting
 * another; this bench ends the queued sessions every 10 ms through the API (GET /api/stream, then DELETE each),
 * as a user would, so that the queue stays short (as the queue limit keeps it in production). That work is the
 * service's too and counted in its CPU per POST. Every 202 is a session on disk: the service answers only after
 * the write that holds it has been synced. A last row compares the service's POST with the bare server doing the
 * least that keeps each POST on disk before its answer (one line appended and synced, the syncs shared as the
 * service shares them): the figure that durability alone allows on this machine. The service logs one line per
 * request at `info`, as it does in production; the lines go to /dev/null.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpus } from 'node:os';
import path from 'node:path';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { startService } from './service.ts';
import { cpuSeconds, median } from './stats.ts';
import {
  APP_PORT,
  BARE_DURABLE_PORT,
  BARE_PORT,
  CATALOG,
  ISSUER_PORT,
  SESSION_PORTS,
  SIGNED_IN_PORT,
  startReaper,
  type Canned,
} from './server-targets.ts';
import { hashToken } from '../server/auth/tokens.ts';
import { startOidcIssuer } from '../test-support/oidc-issuer.ts';

const root = path.resolve(import.meta.dirname, '..');
// Enough connections to saturate a server whose answers wait on a timer or a disk write, not on the CPU.
const CONNECTIONS = 32;
/** Each server is measured in ROUNDS slices of ROUND_S, alternating, so that load from other programs on a
 * shared machine falls on both alike; the ratio is the median of the rounds' own ratios, so that one slow
 * slice does not decide it. */
const ROUNDS = 5;
const ROUND_S = 2;
const WARMUP_S = 1;
const GET_PATH = '/api/cfg/apps/usd-viewer';
const POST_PATH = '/api/stream';
const POST_BODY = JSON.stringify({ id: 'usd-viewer', profile: 'default' });
/** The service's requests per second against its reference's, for GET and for POST alike. */
const TARGET_RATIO = 0.6;
/** A GET with an access token (JWT) against the same GET with a static token (issue 32). */
const JWT_TARGET_RATIO = 0.8;

/** The bare server's CPU time so far, in microseconds. */
function bareCpu(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (message: unknown) => {
      if (typeof message !== 'object' || message === null || !('cpu' in message)) return;
      child.off('message', onMessage);
      resolve(Number((message as { cpu: unknown }).cpu));
    };
    child.on('message', onMessage);
    child.send('cpu');
  });
}

function startChild(args: string[], env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/server-targets.ts', ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.disconnect();
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

interface Load {
  rps: number;
  /** CPU time of the server per answered request, in microseconds. */
  cpuUs: number;
  p99: number;
  ok: number;
  other: number;
}

/** What one load is sent to: a server, an address of it, and the headers of every request. */
interface Target {
  server: Server;
  url: string;
  headers?: string[];
}

/** One autocannon run in a process of its own; its JSON report read back. */
function load({ url, headers = [] }: Target, post: boolean, seconds: number): Promise<Load> {
  const args = [path.join(root, 'node_modules/autocannon/autocannon.js'), '-j', '-c', String(CONNECTIONS)];
  args.push('-d', String(seconds));
  for (const header of headers) args.push('-H', header);
  if (post) args.push('-m', 'POST', '-H', 'content-type=application/json', '-b', POST_BODY);
  args.push(url);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited with ${code}`));
      const report = JSON.parse(out) as {
        requests: { average: number };
        latency: { p99: number };
        '2xx': number;
        non2xx: number;
        errors: number;
      };
      resolve({
        rps: report.requests.average,
        cpuUs: 0,
        p99: report.latency.p99,
        ok: report['2xx'],
        other: report.non2xx + report.errors,
      });
    });
  });
}

/** The rounds of one server as one figure: the median rate, the CPU time per request over them all. */
function combine(loads: Load[]): Load {
  const requests = loads.reduce((sum, l) => sum + l.ok + l.other, 0);
  return {
    rps: median(loads.map((l) => l.rps)),
    cpuUs: loads.reduce((sum, l) => sum + l.cpuUs * (l.ok + l.other), 0) / Math.max(1, requests),
    p99: Math.max(...loads.map((l) => l.p99)),
    ok: loads.reduce((sum, l) => sum + l.ok, 0),
    other: loads.reduce((sum, l) => sum + l.other, 0),
  };
}

async function round(target: Target, post: boolean): Promise<Load> {
  const before = await target.server.cpu();
  const result = await load(target, post, ROUND_S);
  const after = await target.server.cpu();
  return { ...result, cpuUs: (after - before) / Math.max(1, result.ok + result.other) };
}

interface Server {
  base: string;
  /** CPU time used so far, in microseconds. */
  cpu: () => Promise<number>;
}

/** Two servers measured on one endpoint; `ratio` is the median of the rounds' ratios, `spread` their range. */
interface Comparison {
  ours: Load;
  theirs: Load;
  ratio: number;
  spread: [number, number];
}

/** The endpoint of the comparison (GET or POST) on `server`. */
const endpoint = (server: Server, post: boolean, headers?: string[]): Target => ({
  server,
  url: `${server.base}${post ? POST_PATH : GET_PATH}`,
  ...(headers ? { headers } : {}),
});

/** Two targets under one load: a warm-up each, then alternating rounds. */
async function compare(ourTarget: Target, theirTarget: Target, post: boolean): Promise<Comparison> {
  await load(ourTarget, post, WARMUP_S);
  await load(theirTarget, post, WARMUP_S);
  const ours: Load[] = [];
  const theirs: Load[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    ours.push(await round(ourTarget, post));
    theirs.push(await round(theirTarget, post));
  }
  const ratios = ours.map((load, i) => load.rps / theirs[i]!.rps);
  return {
    ours: combine(ours),
    theirs: combine(theirs),
    ratio: median(ratios),
    spread: [Math.min(...ratios), Math.max(...ratios)],
  };
}

/**
 * The GET with an access token of a real OpenID provider against the GET with a static token, on a service that
 * has both (its own, started here); what it started is stopped through `stops`.
 */
async function jwtAgainstStaticToken(stops: (() => Promise<void>)[]): Promise<Comparison> {
  const issuer = await startOidcIssuer({ port: ISSUER_PORT });
  stops.push(issuer.stop);
  const dir = await mkdtemp(path.join(tmpdir(), 'streamgate-bench-tokens-'));
  stops.push(() => rm(dir, { recursive: true, force: true }));
  const staticToken = 'bench-static-token';
  const tokensFile = path.join(dir, 'tokens.yaml');
  await writeFile(
    tokensFile,
    `tokens:\n  - {user: alice, roles: [user], token_sha256: ${hashToken(staticToken)}}\n`,
  );
  const signedIn = await startService({
    port: SIGNED_IN_PORT,
    catalog: CATALOG,
    env: { ...issuer.env(), STREAMGATE_TOKENS: tokensFile, STREAMGATE_PORT_RANGE: SESSION_PORTS },
  });
  stops.push(signedIn.stop);
  const server: Server = { base: signedIn.base, cpu: async () => cpuSeconds(signedIn.pid) * 1e6 };
  const jwt = await issuer.accessToken('alice');
  return compare(
    endpoint(server, false, [`authorization=Bearer ${jwt}`]),
    endpoint(server, false, [`authorization=Bearer ${staticToken}`]),
    false,
  );
}

async function main(): Promise<void> {
  const children: ChildProcess[] = [];
  const stops: (() => Promise<void>)[] = [];
  const cleanup = async () => {
    for (const stop of stops.reverse()) await stop();
    await Promise.all(children.map(stopChild));
  };
  process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));
  try {
    const app = await startService({
      port: APP_PORT,
      catalog: CATALOG,
      env: {
        STREAMGATE_CAPACITY: '1',
        STREAMGATE_QUEUE_LIMIT: '100000',
        STREAMGATE_PORT_RANGE: SESSION_PORTS,
        // Every request of the load is one caller: no limit of launches a minute, or of sessions held.
        STREAMGATE_RATE_LIMIT: 'off',
        STREAMGATE_USER_LIMIT: 'off',
      },
    });
    stops.push(app.stop);
    const base = app.base;
    const launch = (body: string) =>
      fetch(`${base}${POST_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const holder = await launch(JSON.stringify({ id: 'stand-in', profile: 'default' }));
    if (holder.status >= 300)
      throw new Error(`The holder's launch answered ${holder.status}: ${await holder.text()}`);
    const holderId = ((await holder.json()) as { id: string }).id;
    const getBody = await (await fetch(`${base}${GET_PATH}`)).text();
    const created = await launch(POST_BODY);
    if (created.status !== 202) throw new Error(`POST answered ${created.status}, not 202`);
    const postBody = await created.text();
    stops.push(startReaper(base, holderId));
    const canned: Canned = { getBody, postBody };
    const bare = await startChild(['--serve-bare'], { BENCH_CANNED: JSON.stringify(canned) });
    children.push(bare);

    // /proc counts in hundredths of a second: enough over rounds of 2 s.
    const service: Server = { base, cpu: async () => cpuSeconds(app.pid) * 1e6 };
    const plain: Server = { base: `http://127.0.0.1:${BARE_PORT}`, cpu: () => bareCpu(bare) };
    const synced: Server = { base: `http://127.0.0.1:${BARE_DURABLE_PORT}`, cpu: () => bareCpu(bare) };
    const get = await compare(endpoint(service, false), endpoint(plain, false), false);
    const post = await compare(endpoint(service, true), endpoint(plain, true), true);
    const durable = await compare(endpoint(synced, true), endpoint(plain, true), true);
    const signedIn = await jwtAgainstStaticToken(stops);
    const rows: [string, Comparison][] = [
      [`GET ${GET_PATH}`, get],
      [`POST ${POST_PATH} (202)`, post],
      [`  bare itself, synced POST **`, durable],
    ];

    console.log(
      `Service vs bare node:http, ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${ROUND_S} s ` +
        `after ${WARMUP_S} s warm-up, ` +
        `${cpus().length} cores, Node ${process.version}`,
    );
    const line = (cells: string[]) =>
      console.log(cells.map((c, i) => (i === 0 ? c.padEnd(30) : c.padStart(16))).join(''));
    line([
      'endpoint',
      'service req/s',
      'bare req/s',
      'ratio',
      'ratio range',
      'service CPU/req',
      'bare CPU/req',
      'service p99',
    ]);
    for (const [name, { ours, theirs, ratio, spread }] of rows) {
      line([
        name,
        ours.rps.toFixed(0),
        theirs.rps.toFixed(0),
        ratio.toFixed(2),
        `${spread[0].toFixed(2)}-${spread[1].toFixed(2)}`,
        `${ours.cpuUs.toFixed(0)} us`,
        `${theirs.cpuUs.toFixed(0)} us`,
        `${ours.p99} ms`,
      ]);
      if (ours.other > 0) console.log(`  ${name}: ${ours.other} answers were not 2xx`);
    }
    console.log(
      `POST: ${post.ours.ok} sessions accepted (202), each on disk before its answer; ` +
        "the service's CPU per POST includes ending each again through the API",
    );
    console.log("req/s: median of the rounds; ratio: median of the rounds' ratios; CPU: over all rounds");
    console.log(
      '** bare node:http that appends each answer to a file and syncs it before it sends it (one sync shared ' +
        'by the requests that arrive meanwhile), against itself without: what a sync before the answer leaves',
    );
    // Each figure against its own reference: a POST is on disk before its answer, so it is held to the bare
    // server that syncs too; a GET stores nothing, so to the bare server.
    const postToSynced = post.ours.rps / durable.ours.rps;
    const verdict = (ratio: number) =>
      `target >= ${TARGET_RATIO.toFixed(2)}: ${ratio >= TARGET_RATIO ? 'met' : 'not met'}`;
    console.log(`GET ${GET_PATH}, ratio to bare: ${get.ratio.toFixed(2)} (${verdict(get.ratio)})`);
    console.log(
      `POST ${POST_PATH}, ratio to the bare server that syncs (**): ${postToSynced.toFixed(2)} (${verdict(postToSynced)})`,
    );
    const { ours: jwt, theirs: token, ratio, spread } = signedIn;
    console.log(
      `GET ${GET_PATH} on a service with a tokens file and an identity provider: ` +
        `access token (JWT) ${jwt.rps.toFixed(0)} req/s (${jwt.cpuUs.toFixed(0)} us CPU/req, p99 ${jwt.p99} ms), ` +
        `static token ${token.rps.toFixed(0)} req/s (${token.cpuUs.toFixed(0)} us CPU/req, p99 ${token.p99} ms)`,
    );
    if (jwt.other + token.other > 0) console.log(`  ${jwt.other + token.other} answers were not 2xx`);
    console.log(
      `  ratio JWT to static token: ${ratio.toFixed(2)} (range ${spread[0].toFixed(2)}-${spread[1].toFixed(2)}; ` +
        `target >= ${JWT_TARGET_RATIO.toFixed(2)}: ${ratio >= JWT_TARGET_RATIO ? 'met' : 'not met'})`,
    );
  } finally {
    await cleanup();
  }
}

await main();
