/**
 * Free loopback ports for the processes tests start: asked of the system, so that parallel runs do not collide,
 * or taken from a fixed range where a process must find its port again after a restart.
 */
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';

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
/** Forty ports of 47000-47999 for one service's sessions, different for each service this process starts. */
export function sessionPortRange(): { first: number; last: number } {
  const first = 47000 + ((process.pid * 7 + ranges++ * 40) % 900);
  return { first, last: first + 39 };
}
