/**
 * Where a ready session's application listens, for the routes that forward to it through the service (the door's
 * WHEP, CONTRACT §21, and the session's files): the node its runner placed it on, or the address the local
 * runner bound, and its ports.
 */
import { hostPort } from '../door/host-port.ts';
import { probeHost } from '../sessions/health-probe.ts';
import type { SessionRecord } from '../sessions/types.ts';

export interface AppPlace {
  /** An address to connect to (a wildcard bind is reached on the loopback). */
  host: string;
  ports: { signaling: number; media: number };
}

/** Where the application of `record` listens once it is ready; undefined before, or without ports. */
export function placement(record: SessionRecord, publicHost: string): AppPlace | undefined {
  if (record.state !== 'ready' || !record.ports) return undefined;
  return { host: probeHost(record.host ?? publicHost), ports: record.ports };
}

/** The URL of `path` (with its query) on the application's signaling port. */
export function signalingUrl(place: AppPlace, path: string): string {
  return `http://${hostPort(place.host, place.ports.signaling)}${path}`;
}
