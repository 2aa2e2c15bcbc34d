import { createSocket, type Socket } from 'node:dgram';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { canBind, ephemeralPortsIn, noteEphemeralPorts, PortPool } from './port-pool.ts';

import { testPorts } from '../../test-support/ports.ts';
import { freeBlock, removeDir, tempDataDir } from '../../test-support/session-support.ts';

// This file's ports: 28100-28119; each test takes a block of them that is free when it starts.
let FIRST = 28100;

const open: Array<Server | Socket> = [];

function listenTcp(port: number): Promise<Server> {
  const server = createServer();
  open.push(server);
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

function bindUdp(port: number): Promise<Socket> {
  const socket = createSocket('udp4');
  open.push(socket);
  return new Promise((resolve) => socket.bind(port, '127.0.0.1', () => resolve(socket)));
}

beforeEach(async () => {
  FIRST = await freeBlock(28100, 28119, 6);
});

afterEach(async () => {
  for (const handle of open.splice(0)) await new Promise<void>((resolve) => handle.close(() => resolve()));
});

describe('canBind', () => {
  it('sees a TCP listener and a UDP socket on one address as taken, each for its own protocol', async () => {
    expect(await canBind(FIRST, 'tcp')).toBe(true);
    await listenTcp(FIRST);
    expect(await canBind(FIRST, 'tcp')).toBe(false);
    await bindUdp(FIRST + 1);
    expect(await canBind(FIRST + 1, 'udp')).toBe(false);
    expect(await canBind(FIRST + 1, 'tcp')).toBe(true);
  });
});

describe('PortPool', () => {
  it('hands out distinct pairs, even to allocations made at the same moment, until the range is used up', async () => {
    const pool = new PortPool({ first: FIRST, last: FIRST + 5 });
    const pairs = await Promise.all([pool.allocate(), pool.allocate(), pool.allocate(), pool.allocate()]);
    const given = pairs.filter((p) => p !== undefined);
    expect(given).toHaveLength(3);
    const ports = given.flatMap((p) => [p.signaling, p.media]);
    expect(new Set(ports).size).toBe(6);
    expect(pool.inUse()).toEqual([...ports].sort((a, b) => a - b));
  });

  it('skips ports that another program holds', async () => {
    await listenTcp(FIRST);
    await bindUdp(FIRST + 2);
    const pool = new PortPool({ first: FIRST, last: FIRST + 3 });
    expect(await pool.allocate()).toEqual({ signaling: FIRST + 1, media: FIRST + 3 });
  });

  it('gives released ports out again, the most recently released last', async () => {
    const pool = new PortPool({ first: FIRST, last: FIRST + 3 });
    const a = await pool.allocate();
    const b = await pool.allocate();
    pool.release(a);
    pool.release(b);
    expect(pool.inUse()).toEqual([]);
    expect(await pool.allocate()).toEqual(a);
  });

  it('claims ports of an adopted application without testing them, and refuses to claim them twice', () => {
    const pool = new PortPool({ first: FIRST, last: FIRST + 3 });
    expect(pool.claim({ signaling: FIRST, media: FIRST + 1 })).toBe(true);
    expect(pool.claim({ signaling: FIRST + 1, media: FIRST + 2 })).toBe(false);
    expect(pool.inUse()).toEqual([FIRST, FIRST + 1]);
  });

  it('rejects a range that cannot hold one pair', () => {
    expect(() => new PortPool({ first: FIRST, last: FIRST })).toThrow(/at least two ports/);
    expect(() => new PortPool({ first: 0, last: 10 })).toThrow();
  });
});

describe('ephemeralPortsIn', () => {
  it('names the ports of a range that outgoing connections may take, leaving out reserved ones', async () => {
    const root = await tempDataDir();
    try {
      await mkdir(path.join(root, 'sys/net/ipv4'), { recursive: true });
      await writeFile(path.join(root, 'sys/net/ipv4/ip_local_port_range'), '47005\t60999\n');
      await writeFile(path.join(root, 'sys/net/ipv4/ip_local_reserved_ports'), '47006-47007,47009\n');
      expect(ephemeralPortsIn({ first: 47000, last: 47010 }, root)).toEqual([47005, 47008, 47010]);
      expect(ephemeralPortsIn({ first: 40000, last: 40010 }, root)).toEqual([]);
      expect(ephemeralPortsIn({ first: 40000, last: 40010 }, path.join(root, 'missing'))).toEqual([]);
      // Said as a note, with the command that reserves them: not a warning on every machine.
      const info = vi.fn();
      noteEphemeralPorts({ first: 47000, last: 47010 }, { info }, root);
      expect(info).toHaveBeenCalledTimes(1);
      expect(info.mock.calls[0]?.[1]).toMatch(/ip_local_reserved_ports=47005-47010$/);
      noteEphemeralPorts({ first: 40000, last: 40010 }, { info }, root);
      expect(info).toHaveBeenCalledTimes(1);
      // The tests' own fixed ranges are held to it: a lent port fails the test that chose it, at once.
      expect(() => testPorts({ first: 47000, last: 47010 }, root)).toThrow(
        /47005-47010\): choose ports below 32768/,
      );
      expect(testPorts({ first: 40000, last: 40010 }, root)).toEqual({ first: 40000, last: 40010 });
    } finally {
      await removeDir(root);
    }
  });
});
