/**
 * Hands out signaling (TCP) and media (UDP) ports from a range. A port is marked taken before it is
 * tested and allocations run one at a time, so two sessions can never get the same one; it is handed
 * out only after a bind test shows that nothing else on the machine holds it (an application left over
 * from a crash, another program).
 */
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export type PortProtocol = 'tcp' | 'udp';

/** Resolves true when the port can be bound right now on every address (then releases it at once). */
export function canBind(port: number, protocol: PortProtocol): Promise<boolean> {
  return new Promise((resolve) => {
    if (protocol === 'tcp') {
      const server = createServer();
      server.once('error', () => resolve(false));
      // No host: the unspecified address conflicts with a listener on any one address.
      server.listen({ port, exclusive: true }, () => server.close(() => resolve(true)));
    } else {
      const socket = createSocket({ type: 'udp4' });
      socket.once('error', () => {
        socket.close();
        resolve(false);
      });
      socket.bind({ port, exclusive: true }, () => socket.close(() => resolve(true)));
    }
  });
}

/**
 * Ports of the range that the system may hand to outgoing connections (Linux's ip_local_port_range
 * minus ip_local_reserved_ports): a connection can take one between our bind test and the
 * application's own bind. Empty when the system cannot tell.
 */
export function ephemeralPortsIn(range: { first: number; last: number }, procRoot = '/proc'): number[] {
  let first: number;
  let last: number;
  let reserved: string;
  try {
    [first = 0, last = -1] = readFileSync(`${procRoot}/sys/net/ipv4/ip_local_port_range`, 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    reserved = readFileSync(`${procRoot}/sys/net/ipv4/ip_local_reserved_ports`, 'utf8').trim();
  } catch {
    return [];
  }
  const isReserved = (port: number) =>
    reserved.split(',').some((part) => {
      const [low = NaN, high = low] = part.split('-').map(Number);
      return port >= low && port <= high;
    });
  const found: number[] = [];
  for (let port = Math.max(range.first, first); port <= Math.min(range.last, last); port++) {
    if (!isReserved(port)) found.push(port);
  }
  return found;
}

/**
 * Says, at start, which ports of the range outgoing connections may take, and how to reserve them. A note, not a
 * warning: it holds on most machines (Linux lends 32768-60999), and a session that loses a port to a passing
 * connection is started again on others (session-runtime.ts); reserving them only spares that retry.
 */
export function noteEphemeralPorts(
  range: { first: number; last: number },
  logger: { info(fields: Record<string, unknown>, message: string): void },
  root?: string,
): void {
  const exposed = ephemeralPortsIn(range, root);
  if (exposed.length === 0) return;
  const first = exposed[0] as number;
  const last = exposed.at(-1) as number;
  logger.info(
    { first, last, count: exposed.length },
    `Session ports ${first}-${last} lie among the ports this machine lends to outgoing connections; a session ` +
      `that loses one is started again on others. To spare that: sysctl -w net.ipv4.ip_local_reserved_ports=${first}-${last}`,
  );
}

/** The two ports of one session. */
export interface SessionPorts {
  signaling: number;
  media: number;
}

/** The ports of the configured range, and which of them sessions hold. */
export class PortPool {
  private readonly taken = new Set<number>();
  /** Where the next search starts: round robin, so a port just freed is the last to be reused. */
  private cursor: number;
  private last: Promise<unknown> = Promise.resolve();

  constructor(private readonly range: { first: number; last: number }) {
    if (!(range.first > 0 && range.last >= range.first + 1 && range.last <= 65_535)) {
      throw new Error(
        `Port range ${range.first}-${range.last} must hold at least two ports between 1 and 65535.`,
      );
    }
    this.cursor = range.first;
  }

  get size(): number {
    return this.range.last - this.range.first + 1;
  }

  /** Ports currently handed out or being tested. */
  inUse(): number[] {
    return [...this.taken].sort((a, b) => a - b);
  }

  /** Marks ports as taken without a test: an adopted application already holds them. */
  claim(ports: SessionPorts): boolean {
    if (this.taken.has(ports.signaling) || this.taken.has(ports.media)) return false;
    this.taken.add(ports.signaling);
    this.taken.add(ports.media);
    return true;
  }

  release(ports: SessionPorts | undefined): void {
    if (!ports) return;
    this.taken.delete(ports.signaling);
    this.taken.delete(ports.media);
  }

  /**
   * A free signaling and media port pair, or undefined when the range has none. Allocations run one
   * at a time: interleaved ones could each hold half a pair and leave the range short of whole pairs.
   */
  allocate(): Promise<SessionPorts | undefined> {
    const next = this.last.then(() => this.allocateNow());
    this.last = next.catch(() => undefined);
    return next;
  }

  private async allocateNow(): Promise<SessionPorts | undefined> {
    const signaling = await this.take('tcp');
    if (signaling === undefined) return undefined;
    const media = await this.take('udp');
    if (media === undefined) {
      this.taken.delete(signaling);
      return undefined;
    }
    return { signaling, media };
  }

  private async take(protocol: PortProtocol): Promise<number | undefined> {
    for (let tried = 0; tried < this.size; tried++) {
      const port = this.cursor;
      this.cursor = port >= this.range.last ? this.range.first : port + 1;
      if (this.taken.has(port)) continue;
      this.taken.add(port);
      if (await canBind(port, protocol)) return port;
      this.taken.delete(port);
    }
    return undefined;
  }
}
