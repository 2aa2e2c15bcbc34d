/**
 * Reads where to connect from a session's `routes` (CONTRACT 12-13). Real deployments send either
 * `{host: [route, ...]}` or `{host: {routes: [route, ...]}}`, and the host may be a DNS name.
 */

/** Where a player connects for one session. */
export interface StreamEndpoint {
  /** IP address or DNS name, as written in the key of `routes`. */
  host: string;
  /** TCP port of the signaling (WHEP) server: the `source_port` of the "signaling" route. */
  signalingPort: number;
  /** UDP port every media packet uses: the `source_port` of the "media" route. */
  mediaPort: number;
}

/** Why routes could not be read; the message is meant for a person. */
export class RoutesError extends Error {
  override readonly name = 'RoutesError';
}

/** One route as a session lists it; only `description` and `source_port` matter to a player. */
export interface RouteLike {
  description?: unknown;
  source_port?: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function routeList(value: unknown): RouteLike[] | undefined {
  if (Array.isArray(value)) return value.filter(isRecord);
  if (isRecord(value) && Array.isArray(value.routes)) return value.routes.filter(isRecord);
  return undefined;
}

/**
 * The one reading of either shape of `routes`: each host with its list of routes (`{host: [route, ...]}`),
 * a host whose value is neither shape left out. Undefined when `routes` is no object at all.
 */
export function normaliseRoutes(routes: unknown): Record<string, RouteLike[]> | undefined {
  if (!isRecord(routes)) return undefined;
  const out: Record<string, RouteLike[]> = {};
  for (const [host, value] of Object.entries(routes)) {
    const list = routeList(value);
    if (list) out[host] = list;
  }
  return out;
}

function portOf(routes: RouteLike[], description: string): number | undefined {
  const route = routes.find(
    (r) => typeof r.description === 'string' && r.description.toLowerCase() === description,
  );
  const port = route?.source_port;
  return typeof port === 'number' && Number.isInteger(port) && port > 0 && port < 65536 ? port : undefined;
}

/**
 * Picks the first host whose routes name both a signaling and a media port.
 * Throws RoutesError when there is none, so that callers can show why.
 */
export function parseRoutes(routes: unknown): StreamEndpoint {
  if (!isRecord(routes) || Object.keys(routes).length === 0) {
    throw new RoutesError('The session has no routes yet.');
  }
  for (const [host, list] of Object.entries(normaliseRoutes(routes) ?? {})) {
    if (host.trim() === '') continue;
    const signalingPort = portOf(list, 'signaling');
    const mediaPort = portOf(list, 'media');
    if (signalingPort !== undefined && mediaPort !== undefined) {
      return { host: host.trim(), signalingPort, mediaPort };
    }
  }
  throw new RoutesError('The session routes name no signaling and media ports.');
}

/** `http://host:port` with IPv6 literals bracketed, for building signaling URLs. */
export function hostPort(host: string, port: number): string {
  const bare = host.replace(/^\[|\]$/g, '');
  return bare.includes(':') ? `[${bare}]:${port}` : `${bare}:${port}`;
}
