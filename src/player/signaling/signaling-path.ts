/**
 * Which way the player signals (CONTRACT §21): straight to the application's signaling port, or through the
 * service's own origin (the door), which a browser that cannot reach the session's node still reaches.
 */

/** The portal's setting (`signaling` in config.json). */
export type SignalingMode = 'auto' | 'door' | 'direct';

/** Where the door is, for one session. */
export interface DoorOptions {
  mode: SignalingMode;
  /** The session's WHEP endpoint on the service: `<stream base>/stream/<id>/whep`, absolute. */
  url: string;
}

/** Names of this machine that are one place, so that a loopback route is not taken for another host. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

function sameHost(a: string, b: string): boolean {
  const x = a.toLowerCase().replace(/^\[|\]$/g, '');
  const y = b.toLowerCase().replace(/^\[|\]$/g, '');
  return x === y || (LOOPBACK.has(x) && LOOPBACK.has(y));
}

/**
 * `door` or `direct` for a session whose routes name `routesHost`: `auto` takes the door where the routes name
 * a host other than the service's own (a node, a pod), which a browser may not reach.
 */
export function chooseSignaling(door: DoorOptions | undefined, routesHost: string): 'door' | 'direct' {
  if (!door || door.mode === 'direct') return 'direct';
  if (door.mode === 'door') return 'door';
  return sameHost(new URL(door.url).hostname, routesHost) ? 'direct' : 'door';
}

/**
 * The TURN relays of a WHEP answer's `Link` headers (RFC 9725 §4.4): `<url>; rel="ice-server"; username="..";
 * credential=".."`. Several headers arrive joined by commas; URLs that share a credential become one server.
 */
export function parseIceLinks(header: string | null): RTCIceServer[] {
  if (!header) return [];
  const servers = new Map<string, RTCIceServer>();
  // A comma separates links only outside <...> and quoted strings.
  for (const link of header.match(/<[^>]*>(?:\s*;\s*[A-Za-z-]+\s*=\s*(?:"(?:[^"\\]|\\.)*"|[^;,]*))*/g) ??
    []) {
    const url = /^<([^>]*)>/.exec(link)?.[1];
    const params = new Map<string, string>();
    for (const [, name, quotedValue, bare] of link.matchAll(
      /;\s*([A-Za-z-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;,]*))/g,
    )) {
      params.set((name ?? '').toLowerCase(), (quotedValue ?? bare ?? '').replace(/\\(.)/g, '$1').trim());
    }
    if (!url || params.get('rel') !== 'ice-server' || !/^(stun|stuns|turn|turns):/.test(url)) continue;
    const username = params.get('username');
    const credential = params.get('credential');
    const key = `${username ?? ''}\n${credential ?? ''}`;
    const server = servers.get(key) ?? {
      urls: [] as string[],
      ...(username !== undefined ? { username } : {}),
      ...(credential !== undefined ? { credential } : {}),
    };
    (server.urls as string[]).push(url);
    servers.set(key, server);
  }
  return [...servers.values()];
}
