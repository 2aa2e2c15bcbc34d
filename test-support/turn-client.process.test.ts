/**
 * The tests' TURN client against a throwaway coturn (Debian's `turnserver`) configured as the service's: TURN
 * REST credentials, loopback only, and peers limited to 127.0.0.2, the media door's address.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeStun, parseStun, StunMethod } from '../server/door/stun.ts';
import { freeUdpPort, isFree } from './ports.ts';
import { TurnClient, TurnUnauthorizedError, type TurnAddress } from './turn-client.ts';
import { until } from './until.ts';

const SECRET = 'S';
const REALM = 'streamgate';

/** A TURN REST credential as the service mints it: "<unix expiry>:<session id>", base64(HMAC-SHA1(S, username)). */
function restCredential(expiresAtS: number, sessionId: string): { username: string; password: string } {
  const username = `${Math.floor(expiresAtS)}:${sessionId}`;
  return { username, password: createHmac('sha1', SECRET).update(username).digest('base64') };
}

function canBindUdp(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    socket.once('error', () => {
      socket.close();
      resolve(false);
    });
    socket.bind(port, '127.0.0.1', () => socket.close(() => resolve(true)));
  });
}

/** A port free for both UDP and TCP on loopback: coturn listens on both. */
async function freeListeningPort(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const port = await freeUdpPort();
    if (await isFree(port)) return port;
  }
  throw new Error('No port of loopback is free for both UDP and TCP');
}

/** Relay ports: `count` consecutive UDP ports of 25000-26999 free now, starting at a place of this process's. */
async function freeRelayRange(count: number): Promise<{ first: number; last: number }> {
  const span = 2000 - count;
  for (let i = 0; i < span; i += count) {
    const first = 25000 + ((process.pid * 37 + i) % span);
    const ports = Array.from({ length: count }, (_, k) => first + k);
    if ((await Promise.all(ports.map(canBindUdp))).every(Boolean)) return { first, last: first + count - 1 };
  }
  throw new Error('No free range of relay ports in 25000-26999');
}

/** Whether a STUN Binding request to the port is answered: coturn's listeners are up. */
function answersBinding(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    const done = (answered: boolean) => {
      clearTimeout(timer);
      socket.close();
      resolve(answered);
    };
    const timer = setTimeout(() => done(false), 200);
    socket.on('error', () => done(false));
    socket.on('message', (packet) => done(parseStun(packet)?.cls === 'success'));
    socket.send(encodeStun({ method: StunMethod.Binding, cls: 'request' }), port, '127.0.0.1');
  });
}

interface TurnServer {
  port: number;
  output(): string;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
// Should the test process die with a relay running, the relay dies too.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

async function startTurnServer(): Promise<TurnServer> {
  const port = await freeListeningPort();
  const relayPorts = await freeRelayRange(16);
  // Its own pid file and user database: as root, coturn would otherwise write /var/run/turnserver.pid and
  // open /var/lib/turn/turndb, the machine's own.
  const dir = mkdtempSync(join(tmpdir(), 'sg-turn-'));
  const args = [
    '-n',
    `--listening-port=${port}`,
    '--use-auth-secret',
    `--static-auth-secret=${SECRET}`,
    `--realm=${REALM}`,
    '--no-cli',
    '--no-tls',
    '--no-dtls',
    '--listening-ip=127.0.0.1',
    '--relay-ip=127.0.0.1',
    `--min-port=${relayPorts.first}`,
    `--max-port=${relayPorts.last}`,
    '--allow-loopback-peers',
    '--denied-peer-ip=0.0.0.0-255.255.255.255',
    '--allowed-peer-ip=127.0.0.2',
    '--no-tcp-relay',
    '--log-file=stdout',
    '--simple-log',
    `--pidfile=${join(dir, 'turnserver.pid')}`,
    `--userdb=${join(dir, 'turndb')}`,
  ];
  const child = spawn('/usr/bin/turnserver', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let spawnError: Error | undefined;
  child.once('error', (error) => (spawnError = error));
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    child.once('exit', () => resolve());
  });
  const isRunning = () => child.exitCode === null && child.signalCode === null && !spawnError;

  const stop = async () => {
    if (isRunning()) {
      child.kill('SIGTERM');
      const kill = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(kill);
    }
    running.delete(child);
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await until(
      'coturn to answer STUN',
      async () => {
        if (!isRunning()) throw new Error(`turnserver ended (${spawnError?.message ?? child.exitCode})`);
        return answersBinding(port);
      },
      15_000,
      100,
    );
  } catch (error) {
    await stop();
    throw new Error(`The throwaway turnserver did not start: ${(error as Error).message}\n${output}`, {
      cause: error,
    });
  }
  return { port, output: () => output, stop };
}

let turn: TurnServer | undefined;
const clients: TurnClient[] = [];
const sockets: Socket[] = [];

async function client(credential: { username: string; password: string }): Promise<TurnClient> {
  if (!turn) throw new Error('No turnserver');
  const made = await TurnClient.connect({
    server: { host: '127.0.0.1', port: turn.port },
    ...credential,
    localHost: '127.0.0.1',
    rtoMs: 250,
  });
  clients.push(made);
  return made;
}

const nowS = () => Date.now() / 1000;

beforeAll(async () => {
  turn = await startTurnServer();
});

afterAll(async () => {
  try {
    await Promise.all(clients.splice(0).map((one) => one.close()));
    for (const socket of sockets.splice(0)) socket.close();
  } finally {
    await turn?.stop();
  }
});

describe('TurnClient against coturn', () => {
  it('allocates a relayed address with a good credential', async () => {
    const one = await client(restCredential(nowS() + 3600, 'session-1'));
    const allocation = await one.allocate();
    expect(allocation.relayed.host).toBe('127.0.0.1');
    expect(allocation.relayed.port).toBeGreaterThan(0);
    expect(allocation.mapped).toEqual(one.local);
  });

  it('is refused (401) with an expired credential', async () => {
    const one = await client(restCredential(nowS() - 60, 'session-1'));
    const refused = await one.allocate().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(TurnUnauthorizedError);
    expect(refused).toMatchObject({ code: 401 });
  });

  it('is refused (401) with a password not made with the secret', async () => {
    const { username } = restCredential(nowS() + 3600, 'session-1');
    const one = await client({ username, password: 'guessed' });
    await expect(one.allocate()).rejects.toMatchObject({ name: 'TurnUnauthorizedError', code: 401 });
  });

  it('permits 127.0.0.2, the media door, and refuses 127.0.0.1 (403)', async () => {
    const one = await client(restCredential(nowS() + 3600, 'session-2'));
    await one.allocate();
    expect(await one.createPermission('127.0.0.2')).toBe('ok');
    expect(await one.createPermission('127.0.0.1')).toMatchObject({ error: 403 });
  });

  it('relays data to a socket on 127.0.0.2 and brings its answer back as a Data indication', async () => {
    const peer = createSocket('udp4');
    sockets.push(peer);
    await new Promise<void>((resolve) => peer.bind(0, '127.0.0.2', resolve));
    const peerAddress: TurnAddress = { host: '127.0.0.2', port: peer.address().port };
    const atPeer: { data: Buffer; from: RemoteInfo }[] = [];
    peer.on('message', (data, from) => {
      atPeer.push({ data, from });
      peer.send(Buffer.concat([Buffer.from('answer to '), data]), from.port, from.address);
    });

    const one = await client(restCredential(nowS() + 3600, 'session-3'));
    const { relayed } = await one.allocate();
    expect(await one.createPermission('127.0.0.2')).toBe('ok');
    const atClient: { data: Buffer; peer: TurnAddress }[] = [];
    one.onData((data, from) => atClient.push({ data, peer: from }));

    // Datagrams may be lost even on loopback; each try is a new datagram.
    await until(
      'the answer through the relay',
      () => {
        if (atClient.length === 0) one.send(peerAddress, Buffer.from('hello'));
        return atClient[0];
      },
      10_000,
      200,
    );
    expect(atPeer[0]?.data.toString()).toBe('hello');
    expect({ host: atPeer[0]?.from.address, port: atPeer[0]?.from.port }).toEqual(relayed);
    expect(atClient[0]?.data.toString()).toBe('answer to hello');
    expect(atClient[0]?.peer).toEqual(peerAddress);
  });
});
