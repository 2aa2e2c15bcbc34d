/**
 * The embedded TURN relay run for real (server/door/coturn.ts, Debian's coturn): it answers once started, stops
 * leaving nothing behind, comes back when killed, goes with a service that ends, and says in one sentence why it
 * cannot start.
 */
import { spawn } from 'node:child_process';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive } from '../runners/process-group.ts';
import { freePort } from '../../test-support/ports.ts';
import { until } from '../../test-support/until.ts';
import { EmbeddedCoturn, mintSecret, TurnUnavailable, type CoturnOptions } from './coturn.ts';
import { encodeStun, newTransactionId, parseStun, StunMethod } from './stun.ts';

/** What the relay logged, every level, for the checks that the secret is in none of it. */
const logged: string[] = [];
const record = (level: string) => (o: object, m: string) => logged.push(`${level} ${JSON.stringify(o)} ${m}`);
const log = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  logged.length = 0;
});

function runDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'streamgate-coturn-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'turn');
}

async function options(overrides: Partial<CoturnOptions> = {}): Promise<CoturnOptions> {
  return {
    runDir: runDir(),
    listenHost: '127.0.0.1',
    port: await freePort(),
    relayIp: '127.0.0.1',
    // Bound only when a client allocates, which none does here.
    relayPorts: { first: 26000, last: 26019 },
    allowedPeers: ['127.0.0.2'],
    secret: await mintSecret(),
    log,
    restartDelaysMs: [100, 200],
    ...overrides,
  };
}

async function start(o: CoturnOptions): Promise<EmbeddedCoturn> {
  const relay = await EmbeddedCoturn.start(o);
  cleanups.push(() => relay.stop());
  return relay;
}

/** Whether a Binding request over UDP gets a Binding success response (0x0101) of its transaction within a second. */
async function answersBinding(port: number, host = '127.0.0.1'): Promise<boolean> {
  const transaction = newTransactionId();
  const request = encodeStun({ method: StunMethod.Binding, cls: 'request', transactionId: transaction });
  const socket = createSocket('udp4');
  try {
    return await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 1_000);
      socket.on('message', (answer) => {
        const message = parseStun(answer);
        if (message?.cls === 'success' && message.transactionId.equals(transaction)) {
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

/** Whether a TCP connection to the port is accepted. */
function acceptsTcp(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A UDP socket on the port, held until the test ends. */
async function holdUdp(port: number): Promise<UdpSocket> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(port, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => socket.close(() => resolve())));
  return socket;
}

/** A TCP listener on the port, held until the test ends. */
async function holdTcp(port: number): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return server;
}

/** Rejects with the message of the TurnUnavailable that `promise` rejects with. */
async function unavailable(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TurnUnavailable);
  return (error as TurnUnavailable).message;
}

describe('EmbeddedCoturn', () => {
  it('answers a STUN Binding request over UDP and accepts TCP once started, and stop() leaves no process', async () => {
    const o = await options();
    const relay = await start(o);
    expect(relay.running).toBe(true);
    const pid = relay.pid;
    expect(pid).toBeGreaterThan(0);
    expect(await answersBinding(o.port)).toBe(true);
    expect(await acceptsTcp(o.port)).toBe(true);

    // The secret lies in a file only its user can read, in a folder only its user can enter.
    const config = path.join(o.runDir, 'turnserver.conf');
    expect(statSync(config).mode & 0o777).toBe(0o600);
    expect(statSync(o.runDir).mode & 0o777).toBe(0o700);
    // coturn took every option it was given (an unknown one is only a line of its output).
    expect(logged.some((line) => /Bad configuration format/i.test(line))).toBe(false);
    expect(logged.some((line) => line.includes('RFC5780 disabled'))).toBe(true);

    await relay.stop();
    expect(relay.running).toBe(false);
    expect(relay.pid).toBeUndefined();
    expect(isAlive(pid as number)).toBe(false);
    expect(await answersBinding(o.port)).toBe(false);
    expect(() => statSync(config)).toThrow();
    // A second stop has nothing left to do.
    await relay.stop();
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.filter((line) => line.includes(o.secret))).toEqual([]);
  });

  it('comes back with a new pid when the child is killed, and stays stopped after stop()', async () => {
    const o = await options();
    const relay = await start(o);
    const first = relay.pid as number;
    const restarts: number[] = [];
    relay.onRestart((pid) => restarts.push(pid));

    process.kill(first, 'SIGKILL');
    const second = await until('the relay to restart', () => restarts[0], 10_000);
    expect(second).not.toBe(first);
    expect(relay.pid).toBe(second);
    expect(isAlive(first)).toBe(false);
    expect(await answersBinding(o.port)).toBe(true);
    expect(await acceptsTcp(o.port)).toBe(true);
    expect(logged.some((line) => line.startsWith('warn') && line.includes('restarting'))).toBe(true);

    await relay.stop();
    expect(isAlive(second)).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(restarts).toEqual([second]);
    expect(await answersBinding(o.port)).toBe(false);
    expect(logged.filter((line) => line.includes(o.secret))).toEqual([]);
  });

  it('starts no new relay when stop() comes while it waits to restart one', async () => {
    const o = await options({ restartDelaysMs: [300] });
    const relay = await start(o);
    const restarts: number[] = [];
    relay.onRestart((pid) => restarts.push(pid));
    const pid = relay.pid as number;
    process.kill(pid, 'SIGKILL');
    await until(
      'the relay to see its death',
      () => logged.some((line) => line.includes('restarting')),
      5_000,
    );
    await relay.stop();
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(restarts).toEqual([]);
    expect(relay.running).toBe(false);
    expect(await answersBinding(o.port)).toBe(false);
  });

  it('goes with a service that dies outright or exits', async () => {
    for (const end of ['kill', 'exit'] as const) {
      const o = await options();
      const script = [
        `const { EmbeddedCoturn } = await import(${JSON.stringify(path.resolve(import.meta.dirname, 'coturn.ts'))});`,
        'const log = { info() {}, warn() {}, error() {} };',
        `const relay = await EmbeddedCoturn.start({ ...${JSON.stringify({ ...o, log: undefined })}, log });`,
        'console.log(relay.pid);',
        end === 'exit' ? 'process.exit(0);' : 'setInterval(() => undefined, 1000);',
      ].join('\n');
      const service = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      cleanups.push(() => {
        if (service.exitCode === null && service.signalCode === null) service.kill('SIGKILL');
      });
      let said = '';
      service.stdout.on('data', (chunk: Buffer) => (said += chunk.toString()));
      const pid = await until(
        'the service to start its relay',
        () => Number(said.trim()) || undefined,
        20_000,
      );
      if (end === 'kill') service.kill('SIGKILL');
      await until(`the relay to go with a service that ends (${end})`, () => !isAlive(pid), 5_000);
      expect(await answersBinding(o.port)).toBe(false);
    }
  });

  it('rejects, in one sentence, a TURN port another program holds for UDP or TCP', async () => {
    const sentence = (port: number) =>
      `The TURN port ${port} is in use by another program: free it, or set STREAMGATE_TURN_PORT.`;
    const udp = await options();
    await holdUdp(udp.port);
    expect(await unavailable(EmbeddedCoturn.start(udp))).toBe(sentence(udp.port));
    const tcp = await options();
    await holdTcp(tcp.port);
    expect(await unavailable(EmbeddedCoturn.start(tcp))).toBe(sentence(tcp.port));
  });

  it('rejects, in one sentence, a missing binary', async () => {
    const o = await options({ binary: '/nonexistent/turnserver' });
    expect(await unavailable(EmbeddedCoturn.start(o))).toBe(
      "coturn is not installed (turnserver not found): run npm run setup, or set STREAMGATE_TURN_URLS to a TURN server of the site's.",
    );
    const named = await options({ binary: 'streamgate-no-such-turnserver' });
    expect(await unavailable(EmbeddedCoturn.start(named))).toMatch(/^coturn is not installed/);
  });

  it('rejects, with its last line, a turnserver that exits at start', async () => {
    const dir = path.dirname(runDir());
    const binary = path.join(dir, 'turnserver');
    writeFileSync(
      binary,
      '#!/bin/sh\necho "0: : starting"\nsleep 0.2\necho "0: : ERROR: the relay cannot go on" >&2\nexit 3\n',
    );
    chmodSync(binary, 0o755);
    const o = await options({ binary });
    expect(await unavailable(EmbeddedCoturn.start(o))).toBe(
      'The TURN relay (coturn) exited at start with exit code 3: "ERROR: the relay cannot go on".',
    );
  });
});
