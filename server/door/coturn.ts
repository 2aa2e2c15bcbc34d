/**
 * The door's embedded TURN relay: Debian's coturn (`turnserver`), run in the foreground as a child of the service.
 * Browsers reach it on the TURN port (UDP and TCP); it relays UDP to the media door and nowhere else, and takes
 * TURN REST credentials (`use-auth-secret`) minted with a secret only the service and it know.
 *
 * The secret lies in its configuration file alone (mode 0600, in a folder of mode 0700), never on a command line,
 * in its environment or in a log line: coturn's own output is passed on with any occurrence of it masked.
 *
 * The relay is stopped on every way out: by stop(), by an exit hook when the service exits with it running, and,
 * where util-linux's setpriv is at hand, by the kernel when the service dies outright (a parent-death signal), so
 * that no orphan keeps the TURN port from the next start. A relay that dies while the service runs is restarted,
 * later each time it keeps failing.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { constants, existsSync, rmSync } from 'node:fs';
import { access, chmod, rm, writeFile } from 'node:fs/promises';
import { connect, createServer, isIP, isIPv6, type Socket } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { PRIVATE_FILE_MODE, openPrivateDir } from '../private-files.ts';
import { signalGroup } from '../runners/process-group.ts';
import { probeHost } from '../sessions/health-probe.ts';
import { hostPort } from './host-port.ts';
import { encodeStun, newTransactionId, parseStun, StunMethod } from './stun.ts';

/** Where the relay writes its log lines; pino's loggers fit. Without `debug`, coturn's routine lines go to `info`. */
export interface CoturnLog {
  debug?(o: object, m: string): void;
  info(o: object, m: string): void;
  warn(o: object, m: string): void;
  error(o: object, m: string): void;
}

/** How the relay listens, what it relays to and with which secret. */
export interface CoturnOptions {
  /** Its configuration, pid file and user database; made (or closed) to mode 0700. */
  runDir: string;
  /** An IP address of this machine, or 0.0.0.0 / :: for all of them. */
  listenHost: string;
  /** The TURN port, UDP and TCP. */
  port: number;
  /** The local address relayed packets leave from. */
  relayIp: string;
  /** The relay's own UDP ports, one per allocation. */
  relayPorts: { first: number; last: number };
  /** The only peer addresses it relays to (the media door). */
  allowedPeers: string[];
  /** The TURN REST secret (mintSecret()). */
  secret: string;
  /** Allocations one username may hold at once; DEFAULT_USER_QUOTA when unset. */
  userQuota?: number;
  /** Allocations in all; the size of the relay range when unset (each allocation takes one of its ports). */
  totalQuota?: number;
  /** The turnserver executable, a path or a name looked up on PATH; `turnserver` when unset. */
  binary?: string;
  log: CoturnLog;
  /** Waits before each restart after a death; the last one repeats. DEFAULT_RESTART_DELAYS_MS when unset. */
  restartDelaysMs?: number[];
}

/** Why the relay is unavailable, for callers that act on it; the message is the sentence for the site's admin. */
export type TurnUnavailableReason = 'missing' | 'port-in-use' | 'cannot-listen' | 'exited' | 'not-ready';

/** The relay could not start: its message is one sentence a site's admin can act on. */
export class TurnUnavailable extends Error {
  constructor(
    message: string,
    readonly reason: TurnUnavailableReason,
  ) {
    super(message);
    this.name = 'TurnUnavailable';
  }
}

/**
 * Room for a viewer's allocations: a browser takes one per TURN URL it is given (UDP and TCP) for each peer
 * connection, and an ICE restart takes new ones before the old ones time out.
 */
export const DEFAULT_USER_QUOTA = 10;
/** 250 ms, 1 s, then 5 s for each further attempt. */
export const DEFAULT_RESTART_DELAYS_MS: readonly number[] = [250, 1_000, 5_000];
/** How long start() (and each restart) waits for the relay to answer on UDP and TCP. */
export const READY_TIMEOUT_MS = 5_000;
/** Between SIGTERM and SIGKILL in stop(). */
const STOP_GRACE_MS = 2_000;
/** A relay that served this long before it died starts the back-off over: it was not failing at start. */
const STABLE_MS = 30_000;
/** Each readiness probe's wait for an answer. */
const PROBE_MS = 250;
const CONFIG_FILE = 'turnserver.conf';
const PID_FILE = 'turnserver.pid';
const USER_DB = 'turndb';
/** Characters of base64, base64url and hex: nothing coturn's configuration reader could take for syntax. */
const SECRET_CHARS = /^[A-Za-z0-9+/=_-]+$/;

/** A fresh TURN REST secret: 32 random bytes, base64url. */
export async function mintSecret(): Promise<string> {
  return (await promisify(randomBytes)(32)).toString('base64url');
}

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::';
}

/** Loopback addresses: 127.0.0.0/8 and ::1 (also as IPv4-mapped). */
function isLoopback(address: string): boolean {
  const v4 = address.toLowerCase().replace(/^::ffff:/, '');
  if (isIP(v4) === 4) return v4.startsWith('127.');
  return /^(0{0,4}:){2,7}0{0,3}1$/.test(address);
}

function checkPort(what: string, port: number): void {
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new RangeError(`${what} must be a port, not ${port}`);
}

function checkCount(what: string, value: number): void {
  if (!Number.isInteger(value) || value < 1)
    throw new RangeError(`${what} must be a positive integer, not ${value}`);
}

/**
 * The text of coturn's configuration file. Every option is one coturn 4.6.1 knows (an unknown one is only a
 * "Bad configuration format" line there, and the relay runs without it). Throws on a value that is not what it
 * claims to be: each lands on a line of its own, and a newline in one would add options.
 */
export function coturnConfig(options: CoturnOptions): string {
  const { listenHost, relayIp, allowedPeers, secret, relayPorts } = options;
  if (isIP(listenHost) === 0)
    throw new TypeError(`The TURN listen host must be an IP address, not "${listenHost}"`);
  if (isIP(relayIp) === 0) throw new TypeError(`The relay IP must be an IP address, not "${relayIp}"`);
  for (const peer of allowedPeers) {
    if (isIP(peer) === 0) throw new TypeError(`An allowed peer must be an IP address, not "${peer}"`);
  }
  // Said without the value: this is the secret.
  if (!SECRET_CHARS.test(secret)) throw new TypeError('The TURN secret must be base64, base64url or hex');
  checkPort('The TURN port', options.port);
  checkPort('The first relay port', relayPorts.first);
  checkPort('The last relay port', relayPorts.last);
  if (relayPorts.first > relayPorts.last) throw new RangeError('The relay ports must run from first to last');
  const userQuota = options.userQuota ?? DEFAULT_USER_QUOTA;
  const totalQuota = options.totalQuota ?? relayPorts.last - relayPorts.first + 1;
  checkCount('The user quota', userQuota);
  checkCount('The total quota', totalQuota);
  const runDir = path.resolve(options.runDir);
  if (/[\r\n]/.test(runDir)) throw new TypeError('The TURN run directory must not contain a line break');

  const lines = [
    `listening-port=${options.port}`,
    // Without it coturn listens on each address of each interface up at its start.
    ...(isWildcard(listenHost) ? [] : [`listening-ip=${listenHost}`]),
    `relay-ip=${relayIp}`,
    `min-port=${relayPorts.first}`,
    `max-port=${relayPorts.last}`,
    'use-auth-secret',
    `static-auth-secret=${secret}`,
    'realm=streamgate',
    // Its own database, empty: the default one (/var/lib/turn/turndb) may hold a site coturn's secrets, which
    // would open this relay too, and allowed peers or realms that would widen what it relays to.
    `userdb=${path.join(runDir, USER_DB)}`,
    'no-dynamic-ip-list',
    'no-dynamic-realms',
    'no-auth-pings',
    'no-cli',
    'no-tls',
    'no-dtls',
    'no-tcp-relay',
    'no-multicast-peers',
    // Loopback peers are refused even when allowed by address, unless this says otherwise.
    ...(allowedPeers.some(isLoopback) ? ['allow-loopback-peers'] : []),
    // Everything denied, then the door allowed: an address both allowed and denied is allowed.
    'denied-peer-ip=0.0.0.0-255.255.255.255',
    'denied-peer-ip=::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    ...allowedPeers.map((peer) => `allowed-peer-ip=${peer}`),
    `user-quota=${userQuota}`,
    `total-quota=${totalQuota}`,
    'stale-nonce=600',
    'no-software-attribute',
    'fingerprint',
    // Otherwise, with more than one listening address, it also binds the port after the TURN port (RFC 5780's
    // second port) and answers with more than it was asked, which helps an amplification attack.
    'no-rfc5780',
    'response-origin-only-with-rfc5780',
    'no-stun-backward-compatibility',
    `pidfile=${path.join(runDir, PID_FILE)}`,
    'log-file=stdout',
    'simple-log',
  ];
  return `${lines.join('\n')}\n`;
}

/** The executable's absolute path, or null: a name is looked up on PATH as a shell would. */
async function findBinary(binary: string): Promise<string | null> {
  const executable = async (file: string) =>
    access(file, constants.X_OK).then(
      () => true,
      () => false,
    );
  if (binary.includes('/')) return (await executable(binary)) ? path.resolve(binary) : null;
  const dirs = (process.env.PATH || '/usr/local/bin:/usr/bin:/bin').split(':').filter(Boolean);
  for (const dir of dirs) {
    const file = path.join(dir, binary);
    if (await executable(file)) return file;
  }
  return null;
}

let pdeathsig: Promise<string | null> | undefined;
/** util-linux's setpriv, where it can give the relay a parent-death signal (2.33 and later); null elsewhere. */
function setprivWithPdeathsig(): Promise<string | null> {
  pdeathsig ??= findBinary('setpriv').then(
    (setpriv) =>
      new Promise((resolve) => {
        if (setpriv === null) return resolve(null);
        execFile(setpriv, ['--help'], { timeout: 5_000 }, (error, stdout) =>
          resolve(!error && stdout.includes('--pdeathsig') ? setpriv : null),
        );
      }),
  );
  return pdeathsig;
}

function missing(): TurnUnavailable {
  return new TurnUnavailable(
    "coturn is not installed (turnserver not found): run npm run setup, or set STREAMGATE_TURN_URLS to a TURN server of the site's.",
    'missing',
  );
}

function portInUse(port: number): TurnUnavailable {
  return new TurnUnavailable(
    `The TURN port ${port} is in use by another program: free it, or set STREAMGATE_TURN_PORT.`,
    'port-in-use',
  );
}

/** Why a bind of the TURN port failed, as the admin's sentence. */
function cannotListen(host: string, port: number, error: NodeJS.ErrnoException): TurnUnavailable {
  if (error.code === 'EADDRINUSE') return portInUse(port);
  if (error.code === 'EACCES') {
    return new TurnUnavailable(
      `The TURN port ${port} needs privileges this service does not have: set STREAMGATE_TURN_PORT to 1024 or above.`,
      'cannot-listen',
    );
  }
  if (error.code === 'EADDRNOTAVAIL') {
    return new TurnUnavailable(
      `The TURN relay cannot listen on ${host}, which is not an address of this machine: give it one of its addresses.`,
      'cannot-listen',
    );
  }
  return new TurnUnavailable(
    `The TURN relay cannot listen on ${hostPort(host, port)} (${error.code ?? error.message}): free that address or choose another.`,
    'cannot-listen',
  );
}

/** Binds the TURN port for UDP and TCP and lets it go; rejects with the admin's sentence when either is taken. */
async function checkPortFree(host: string, port: number): Promise<void> {
  const family = isIPv6(host) ? 'udp6' : 'udp4';
  await new Promise<void>((resolve, reject) => {
    const socket = createSocket(family);
    socket.once('error', (error) => {
      socket.close();
      reject(cannotListen(host, port, error));
    });
    socket.bind(port, host, () => socket.close(() => resolve()));
  });
  await new Promise<void>((resolve, reject) => {
    const server = createServer();
    server.once('error', (error) => reject(cannotListen(host, port, error)));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve()));
  });
}

/** Whether a STUN Binding request over UDP gets its success answer (0x0101, same transaction) in time. */
async function answersStun(host: string, port: number): Promise<boolean> {
  const transaction = newTransactionId();
  const request = encodeStun({ method: StunMethod.Binding, cls: 'request', transactionId: transaction });
  const socket: UdpSocket = createSocket(isIPv6(host) ? 'udp6' : 'udp4');
  try {
    return await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), PROBE_MS);
      socket.on('error', () => {
        clearTimeout(timer);
        resolve(false);
      });
      socket.on('message', (answer) => {
        const message = parseStun(answer);
        if (
          message?.method === StunMethod.Binding &&
          message.cls === 'success' &&
          message.transactionId.equals(transaction)
        ) {
          clearTimeout(timer);
          resolve(true);
        }
      });
      socket.send(request, port, host);
    });
  } finally {
    socket.close();
  }
}

/** Whether a TCP connection to the port is accepted in time. */
function acceptsTcp(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(PROBE_MS, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** coturn 4.6.1's line prefix under simple-log ("<uptime>: : "), which says nothing to a reader. */
const LINE_PREFIX = /^\d+: : ?/;
/** What coturn says when another program holds the TURN port: it retries every second for good instead of ending. */
const BIND_FAILED = /Cannot bind .*listener socket to addr/;
/** Lines an admin may want to see without asking for debug: the rest is the start-up banner and routine. */
const NOTABLE = /\b(error|cannot|failed|fatal|errno)\b/i;

/**
 * Makes the relay's user database, its tables and nothing in them, before the relay first starts: coturn's admin
 * mode (`turnadmin -l`, the turnserver binary called by that name). Left to coturn, each of its threads makes the
 * tables at its first authentication, and the first ones after a start race ("no such table: turn_secret",
 * "database is locked"): a right credential then gets 401, and the browser loses that relay (its UDP one, say, and
 * plays over TCP though UDP works). turnadmin also opens a log file of its own (/var/log/turn_<pid>_<date>.log),
 * removed at once. Best effort: should it fail, coturn makes the tables itself, as before.
 */
async function prepareUserDb(binary: string, file: string): Promise<void> {
  if (existsSync(file)) return;
  const said = await new Promise<string>((resolve) => {
    let out = '';
    const child = spawn(binary, ['-l', '-b', file], {
      argv0: 'turnadmin',
      cwd: path.dirname(file),
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 10_000,
    });
    for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk: Buffer) => (out += chunk));
    child.once('error', () => resolve(out));
    child.once('close', () => resolve(out));
  });
  for (const [, logFile] of said.matchAll(/log file opened: (\S+)/g)) {
    if (logFile && /\/turn_\d+_[\d-]+\.log$/.test(logFile)) await rm(logFile, { force: true });
  }
}

/** Whether the child has exited (or never started). */
function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Resolves once the child has exited, or failed to start at all. */
function exitOf(child: ChildProcess): Promise<void> {
  if (hasExited(child)) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
}

/** SIGTERM to its group, SIGKILL after the grace; resolves once it has exited. */
async function terminate(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined || hasExited(child)) return;
  const exited = exitOf(child);
  signalGroup(pid, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

/** How to kill each relay running in this process at once, for the exit hook. */
const live = new Set<() => void>();
let hooked = false;
/**
 * A service that exits with a relay running takes it along: SIGKILL (coturn keeps nothing worth a clean end, and
 * nothing asynchronous runs in 'exit' to wait for one), and the file holding the secret goes with it.
 */
function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', () => {
    for (const kill of live) kill();
  });
}

/** A child of this relay being started or running, with what it said. */
interface Run {
  child: ChildProcess;
  /** The last line it wrote, its prefix cut and the secret masked. */
  lastLine: string;
  /** It said it could not bind the TURN port. */
  bindFailed: boolean;
  /** Set once it answered on UDP and TCP. */
  readyAt?: number;
}

/**
 * coturn run by the service: started by start(), restarted with back-off when it dies, stopped by stop() or with
 * the service.
 */
export class EmbeddedCoturn {
  private run: Run | undefined;
  private stopping: Promise<void> | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  /** Deaths since the relay last ran for STABLE_MS: the index of the next restart delay. */
  private failures = 0;
  private readonly restartListeners = new Set<(pid: number) => void>();
  private readonly configFile: string;
  /** Kills the running coturn at once and removes the file with the secret, synchronously: for the exit hook. */
  private readonly killNow = () => {
    const child = this.run?.child;
    if (child?.pid !== undefined && !hasExited(child)) signalGroup(child.pid, 'SIGKILL');
    for (const file of this.files()) rmSync(file, { force: true });
  };

  private constructor(
    private readonly options: CoturnOptions,
    private readonly binary: string,
    /** setpriv, to spawn coturn through with a parent-death signal; null to spawn it as it is. */
    private readonly setpriv: string | null,
  ) {
    this.configFile = path.join(path.resolve(options.runDir), CONFIG_FILE);
  }

  /**
   * Writes the configuration, starts coturn and resolves once it answers a STUN Binding request over UDP and
   * accepts a TCP connection on the TURN port; rejects with TurnUnavailable, leaving nothing running, when the
   * binary is missing, the port is taken, or coturn exits or does not answer within READY_TIMEOUT_MS.
   */
  static async start(options: CoturnOptions): Promise<EmbeddedCoturn> {
    // Bad options fail here, before anything runs.
    coturnConfig(options);
    const binary = await findBinary(options.binary ?? 'turnserver');
    if (binary === null) throw missing();
    const relay = new EmbeddedCoturn(options, binary, await setprivWithPdeathsig());
    try {
      await relay.launch();
    } catch (error) {
      await relay.stop();
      throw error;
    }
    return relay;
  }

  /** Whether coturn is running now (false between a death and its restart, and after stop()). */
  get running(): boolean {
    return this.stopping === undefined && this.run !== undefined && !hasExited(this.run.child);
  }

  /** The pid of the running coturn, the leader of its own process group; undefined while none runs. */
  get pid(): number | undefined {
    return this.running ? this.run?.child.pid : undefined;
  }

  /**
   * Calls `listener` with the new pid each time coturn, having died, is running and answering again: its
   * allocations did not survive, so TURN clients must allocate anew. Returns a function that removes it.
   */
  onRestart(listener: (pid: number) => void): () => void {
    this.restartListeners.add(listener);
    return () => this.restartListeners.delete(listener);
  }

  /**
   * Stops coturn for good: SIGTERM to its group, SIGKILL after 2 s; no restart follows. Resolves once it has
   * exited and its configuration (which holds the secret) is removed; every call gets the same promise.
   */
  stop(): Promise<void> {
    this.stopping ??= this.shutDown();
    return this.stopping;
  }

  private async shutDown(): Promise<void> {
    clearTimeout(this.restartTimer);
    const run = this.run;
    if (run) await terminate(run.child);
    live.delete(this.killNow);
    await Promise.all(this.files().map((file) => rm(file, { force: true })));
  }

  /** What the relay leaves in the run directory once it is gone: its configuration (the secret) and pid file. */
  private files(): string[] {
    return [this.configFile, path.join(path.dirname(this.configFile), PID_FILE)];
  }

  private log(level: 'debug' | 'info' | 'warn' | 'error', o: object, m: string): void {
    const log = this.options.log;
    if (level === 'debug') (log.debug ?? log.info).call(log, o, m);
    else log[level](o, m);
  }

  /** One line of coturn's output: masked, remembered as its last words, and logged. */
  private heard(run: Run, raw: string): void {
    const line = raw.replaceAll(this.options.secret, '[secret]').replace(LINE_PREFIX, '').trim();
    if (line === '') return;
    run.lastLine = line.length > 300 ? `${line.slice(0, 300)}…` : line;
    if (BIND_FAILED.test(line)) run.bindFailed = true;
    this.log(NOTABLE.test(line) ? 'info' : 'debug', { pid: run.child.pid }, `coturn: ${run.lastLine}`);
  }

  /** Writes the configuration, spawns coturn and waits until it answers; throws TurnUnavailable otherwise. */
  private async launch(): Promise<void> {
    const { options } = this;
    await checkPortFree(options.listenHost, options.port);
    await openPrivateDir(path.dirname(this.configFile));
    // Written before the mode is set again: writeFile keeps the mode of a file that exists.
    await writeFile(this.configFile, coturnConfig(options), { mode: PRIVATE_FILE_MODE });
    await chmod(this.configFile, PRIVATE_FILE_MODE);
    await prepareUserDb(this.binary, path.join(path.dirname(this.configFile), USER_DB));
    // stop() came while the file was written: it is not to run again, nor is the secret to stay on disk.
    if (this.stopping) {
      await rm(this.configFile, { force: true });
      throw new Error('The TURN relay was stopped while it started');
    }
    const args = ['-c', this.configFile];
    // setpriv execs coturn, which keeps its pid, and the kernel kills it should the service die outright.
    const [file, argv] = this.setpriv
      ? [this.setpriv, ['--pdeathsig', 'KILL', '--', this.binary, ...args]]
      : [this.binary, args];
    const child = spawn(file, argv, {
      cwd: path.dirname(this.configFile),
      // None of the service's environment (which may hold secrets of its own): coturn needs none of it.
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C' },
      // Its own group, so that a signal reaches anything it might start and a Ctrl-C reaches only the service,
      // which then stops it.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const run: Run = { child, lastLine: '', bindFailed: false };
    this.run = run;
    live.add(this.killNow);
    hookExit();
    let spawnError: NodeJS.ErrnoException | undefined;
    child.on('error', (error) => (spawnError = error));
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => this.heard(run, line));
    }
    // The relay must not keep the service's event loop alive: the exit hook stops it when the service exits.
    child.unref();
    for (const stream of [child.stdout, child.stderr]) (stream as Socket | null)?.unref();

    const exited = exitOf(child);
    const host = probeHost(options.listenHost);
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      if (hasExited(child) || spawnError) {
        // Its last words, which explain it, may still be in its pipes.
        await Promise.race([closed, sleep(500)]);
        if (spawnError?.code === 'ENOENT') throw missing();
        if (spawnError) {
          throw new TurnUnavailable(
            `The TURN relay (coturn) could not be started: ${spawnError.message}.`,
            'exited',
          );
        }
        if (run.bindFailed) throw portInUse(options.port);
        const how = child.signalCode ? `killed by ${child.signalCode}` : `with exit code ${child.exitCode}`;
        throw new TurnUnavailable(
          `The TURN relay (coturn) exited at start ${how}${run.lastLine ? `: "${run.lastLine}"` : ''}.`,
          'exited',
        );
      }
      if (run.bindFailed) {
        await terminate(child);
        throw portInUse(options.port);
      }
      if ((await answersStun(host, options.port)) && (await acceptsTcp(host, options.port))) break;
      if (Date.now() > deadline) {
        await terminate(child);
        throw new TurnUnavailable(
          `The TURN relay (coturn) did not answer on ${hostPort(host, options.port)} within ${READY_TIMEOUT_MS / 1000} s` +
            `${run.lastLine ? ` (its last line: "${run.lastLine}")` : ''}: see its lines above in the log.`,
          'not-ready',
        );
      }
      await Promise.race([exited, sleep(100)]);
    }
    run.readyAt = Date.now();
    void exited.then(() => this.died(run));
  }

  /** A relay that was running died: unless stop() was called, it is restarted after the next delay. */
  private died(run: Run): void {
    if (this.stopping || this.run !== run) return;
    // It stays in `live` until stop(): a service that exits before the restart still removes the secret's file.
    this.run = undefined;
    const { child } = run;
    const ranFor = Date.now() - (run.readyAt ?? Date.now());
    if (ranFor >= STABLE_MS) this.failures = 0;
    const delay = this.nextDelay();
    this.log(
      'warn',
      {
        pid: child.pid,
        code: child.exitCode,
        signal: child.signalCode,
        restartInMs: delay,
        lastLine: run.lastLine,
      },
      'The TURN relay (coturn) ended while the service runs; restarting it',
    );
    this.scheduleRestart(delay);
  }

  private nextDelay(): number {
    const delays = this.options.restartDelaysMs ?? DEFAULT_RESTART_DELAYS_MS;
    const delay = delays[Math.min(this.failures, delays.length - 1)] ?? 5_000;
    this.failures += 1;
    return delay;
  }

  private scheduleRestart(delay: number): void {
    this.restartTimer = setTimeout(() => void this.restart(), delay);
    // Nor may a pending restart keep it alive.
    this.restartTimer.unref();
  }

  private async restart(): Promise<void> {
    if (this.stopping) return;
    try {
      await this.launch();
    } catch (error) {
      if (this.stopping) return;
      this.run = undefined;
      const delay = this.nextDelay();
      const message = error instanceof Error ? error.message : String(error);
      this.log('error', { restartInMs: delay }, `The TURN relay (coturn) did not restart: ${message}`);
      this.scheduleRestart(delay);
      return;
    }
    // stop() may have come while it started: it then stops what started.
    if (this.stopping) return;
    const pid = this.run?.child.pid;
    if (pid === undefined) return;
    this.log('info', { pid }, 'The TURN relay (coturn) is running again');
    for (const listener of this.restartListeners) {
      try {
        listener(pid);
      } catch (error) {
        this.log('error', { err: error }, "A listener of the TURN relay's restart failed");
      }
    }
  }
}
