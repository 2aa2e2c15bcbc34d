/**
 * Which ports of a range something still listens on (TCP) or has bound (UDP), read from /proc/net.
 * Binding the ports to find out would also trip over outgoing connections of any program, since the
 * suite's ranges lie among the ports the system gives those; a listener or a bound datagram socket is
 * what a leaked application would leave.
 */
import { readFileSync } from 'node:fs';

const TCP_LISTEN = '0A';

function localPorts(file: string, listeningOnly: boolean): Set<number> {
  const ports = new Set<number>();
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return ports; // no IPv6, for instance
  }
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    const local = fields[1];
    const state = fields[3];
    if (!local || (listeningOnly && state !== TCP_LISTEN)) continue;
    ports.add(parseInt(local.split(':')[1] ?? '', 16));
  }
  return ports;
}

/** Ports of `ports` with a TCP listener or a bound UDP socket on them. */
export async function heldPorts(ports: Iterable<number>): Promise<number[]> {
  const held = new Set([
    ...localPorts('/proc/net/tcp', true),
    ...localPorts('/proc/net/tcp6', true),
    ...localPorts('/proc/net/udp', false),
    ...localPorts('/proc/net/udp6', false),
  ]);
  return [...ports].filter((port) => held.has(port));
}
