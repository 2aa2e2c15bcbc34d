/** Whether ports of a range can be bound again, TCP and UDP: proof that nothing still holds them. */
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';

async function bindTcp(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function bindUdp(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    socket.once('error', () => {
      socket.close();
      resolve(false);
    });
    socket.bind(port, '127.0.0.1', () => socket.close(() => resolve(true)));
  });
}

/** Ports of `ports` that cannot be bound on both protocols. */
export async function heldPorts(ports: Iterable<number>): Promise<number[]> {
  const held: number[] = [];
  for (const port of ports) {
    if (!(await bindTcp(port)) || !(await bindUdp(port))) held.push(port);
  }
  return held;
}
