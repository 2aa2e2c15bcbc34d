/**
 * Free loopback ports for the processes tests start: asked of the system, so that parallel runs do not collide,
 * or taken from a fixed range where a process must find its port again after a restart.
 */
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import { ephemeralPortsIn } from '../server/runners/port-pool.ts';

/**
 * The fixed ports a test gives a service or a manager, checked: none may lie where the system lends ports to
 * outgoing connections (32768-60999 on Linux, unless reserved). There, any connection of the machine (a viewer's
 * ICE socket in another test file, the load test's thousands) can hold one when a session binds it, and the test
 * fails on a port, not on what it tests. The suites' ranges lie in 20000-29999.
 */
export function testPorts<T extends { first: number; last: number }>(range: T, procRoot?: string): T {
  const lent = ephemeralPortsIn(range, procRoot);
  if (lent.length > 0) {
    throw new Error(
      `Test ports ${range.first}-${range.last} lie among the ports this machine lends to outgoing connections ` +
        `(${lent[0]}-${lent.at(-1)}): choose ports below 32768, clear of the other suites' ranges.`,
    );
  }
  return range;
}

/** A free TCP port on loopback, chosen by the system. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** A free UDP port on loopback, chosen by the system. */
export async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const port = socket.address().port;
  await new Promise<void>((resolve) => socket.close(resolve));
  return port;
}

/** Whether a TCP port of loopback can be listened on now. */
export function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A free TCP port of `first`..`last`, starting at a point that differs between processes of one machine. Outside
 * the system's ephemeral ports, so that no outgoing connection takes it while a killed service is down.
 */
export async function freePortIn(first: number, last: number): Promise<number> {
  const span = last - first + 1;
  const start = process.pid % span;
  for (let i = 0; i < span; i += 1) {
    const port = first + ((start + i) % span);
    if (await isFree(port)) return port;
  }
  throw new Error(`No free port in ${first}-${last}`);
}

let ranges = 0;
/** Forty ports of 27000-27999 for one service's sessions, different for each service this process starts. */
export function sessionPortRange(): { first: number; last: number } {
  const first = 27000 + ((process.pid * 7 + ranges++ * 40) % 900);
  return { first, last: first + 39 };
}
