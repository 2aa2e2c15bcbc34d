/**
 * A tiny stand-in application for tests of the session machinery: it answers GET /health on the
 * signaling port and holds the media port, and can be told to misbehave.
 *
 * Flags (each also read from the environment variable in brackets):
 *   --session-id <id>          (STANDIN_SESSION_ID)    only so that the process names its session
 *   --signaling-port <port>    (STREAMGATE_SIGNALING_PORT)
 *   --media-port <port>        (STREAMGATE_MEDIA_PORT) optional; a UDP socket is bound on it
 *   --host <address>           (STREAMGATE_HOST)       default 127.0.0.1
 *   --ready-after-ms <n>       (STANDIN_READY_AFTER_MS) answer 503 on /health until then
 *   --never-ready              (STANDIN_NEVER_READY=1)  never open the signaling port
 *   --exit-after-ms <n>        (STANDIN_EXIT_AFTER_MS)  exit after n ms with --exit-code
 *   --exit-code <n>            (STANDIN_EXIT_CODE)      default 1
 *   --viewers <n>              (STANDIN_VIEWERS)        the viewer count /health reports, default 0
 *   --ignore-sigterm           (STANDIN_IGNORE_SIGTERM=1) so that only SIGKILL stops it
 *   --spawn-child              (STANDIN_SPAWN_CHILD=1)  start a grandchild in the same process group;
 *                                                       its pid is in /health as childPid
 *   --refuse-sharing-stop      (STANDIN_REFUSE_SHARING_STOP=1) answer the service's POST /sharing/stop with
 *                                                       401, as an application that does not take it; else it
 *                                                       is answered 200 and counted in /health as sharingStops
 *   --port-taken-once <file>   (STANDIN_PORT_TAKEN_ONCE) when <file> does not exist: lose the race for
 *                              the signaling port (a detached holder process binds it for 20 s and its
 *                              pid is written to <file>), then exit with code 3, as on EADDRINUSE
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createSocket } from 'node:dgram';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    'session-id': { type: 'string' },
    'signaling-port': { type: 'string' },
    'media-port': { type: 'string' },
    host: { type: 'string' },
    'ready-after-ms': { type: 'string' },
    'never-ready': { type: 'boolean' },
    'exit-after-ms': { type: 'string' },
    'exit-code': { type: 'string' },
    viewers: { type: 'string' },
    'ignore-sigterm': { type: 'boolean' },
    'spawn-child': { type: 'boolean' },
    'port-taken-once': { type: 'string' },
    'refuse-sharing-stop': { type: 'boolean' },
  },
  // Applications may be given flags meant for the real application; they are not an error here.
  strict: false,
});

const env = process.env;
function text(flag: keyof typeof values, variable: string): string | undefined {
  const value = values[flag];
  return typeof value === 'string' ? value : env[variable];
}
function flag(name: keyof typeof values, variable: string): boolean {
  return values[name] === true || env[variable] === '1';
}

const signalingPort = Number(text('signaling-port', 'STREAMGATE_SIGNALING_PORT'));
const mediaText = text('media-port', 'STREAMGATE_MEDIA_PORT');
const host = text('host', 'STREAMGATE_HOST') ?? '127.0.0.1';
const readyAfterMs = Number(text('ready-after-ms', 'STANDIN_READY_AFTER_MS') ?? 0);
const exitAfterText = text('exit-after-ms', 'STANDIN_EXIT_AFTER_MS');
const exitCode = Number(text('exit-code', 'STANDIN_EXIT_CODE') ?? 1);
const viewers = Number(text('viewers', 'STANDIN_VIEWERS') ?? 0);

if (!Number.isInteger(signalingPort) || signalingPort <= 0) {
  console.error('stand-in: --signaling-port is required');
  process.exit(2);
}

const takenMarker = text('port-taken-once', 'STANDIN_PORT_TAKEN_ONCE');
console.log(`stand-in ${text('session-id', 'STANDIN_SESSION_ID') ?? ''} on ${host}:${signalingPort}`);
if (takenMarker !== undefined && !existsSync(takenMarker)) {
  loseThePortRace(takenMarker);
} else {
  run();
}

/** Another program binds the signaling port first; this application then fails as it would on EADDRINUSE. */
function loseThePortRace(marker: string): void {
  const script =
    "require('net').createServer().listen(+process.argv[1], process.argv[2], () => console.log('held'));" +
    'setTimeout(() => process.exit(0), 20000);';
  const holder = spawn(process.execPath, ['-e', script, String(signalingPort), host], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  holder.stdout?.once('data', () => {
    writeFileSync(marker, String(holder.pid));
    console.error(`stand-in: signaling port: listen EADDRINUSE ${host}:${signalingPort}`);
    process.exit(3);
  });
}

function run(): void {
  let grandchild: ChildProcess | undefined;
  if (flag('spawn-child', 'STANDIN_SPAWN_CHILD')) {
    // Not detached: it stays in this process group, which is what a stop of the session must reach.
    grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  }

  if (flag('ignore-sigterm', 'STANDIN_IGNORE_SIGTERM')) {
    process.on('SIGTERM', () => console.log('stand-in: ignoring SIGTERM'));
  } else {
    process.on('SIGTERM', () => process.exit(0));
  }

  if (mediaText !== undefined) {
    const media = createSocket('udp4');
    media.on('error', (error) => {
      console.error(`stand-in: media port: ${error.message}`);
      process.exit(3);
    });
    media.bind(Number(mediaText), host);
  }

  const started = Date.now();
  let sharingStops = 0;
  if (!flag('never-ready', 'STANDIN_NEVER_READY')) {
    const server = createServer((request, response) => {
      if (request.url === '/sharing/stop' && request.method === 'POST') {
        if (flag('refuse-sharing-stop', 'STANDIN_REFUSE_SHARING_STOP')) {
          response.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
          return;
        }
        sharingStops++;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ watchers_dropped: 0 }));
        return;
      }
      if (request.url !== '/health') {
        response.writeHead(404).end();
        return;
      }
      if (Date.now() - started < readyAfterMs) {
        response.writeHead(503).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ viewers, childPid: grandchild?.pid ?? null, sharingStops }));
    });
    server.on('error', (error) => {
      console.error(`stand-in: signaling port: ${error.message}`);
      process.exit(3);
    });
    server.listen(signalingPort, host);
  }

  // Stay up even with nothing listening (--never-ready without a media port).
  setInterval(() => {}, 60_000);

  if (exitAfterText !== undefined) {
    setTimeout(() => {
      // The last line of its log: what a failed session's reason quotes.
      console.error(`stand-in: exiting with code ${exitCode} as asked`);
      process.exit(exitCode);
    }, Number(exitAfterText));
  }
}
