/**
 * TURN credentials for one session's viewers (CONTRACT §21), by the TURN REST convention that coturn's
 * `use-auth-secret` checks: the username is `<unix expiry>:<session id>` and the password the base64 of
 * HMAC-SHA1(secret, username). Nothing is stored: the TURN server recomputes the password from the username,
 * and refuses it once the expiry has passed. They are handed out as RTCIceServer objects (the ticket reply's
 * `ice_servers`) and as `Link` headers on a WHEP answer (RFC 9725 §4.4).
 */
import { createHmac } from 'node:crypto';
import { hostPort } from './host-port.ts';

/** The shape of WebRTC's RTCIceServer, as the contract's `ice_servers` carries it. */
export interface IceServer {
  urls: string[];
  username: string;
  credential: string;
}

/** The username and password of a credential that expires at `expiresS` (seconds since the epoch). */
export function mintTurnCredential(
  secret: string,
  sessionId: string,
  expiresS: number,
): { username: string; credential: string } {
  const username = `${Math.floor(expiresS)}:${sessionId}`;
  return { username, credential: createHmac('sha1', secret).update(username).digest('base64') };
}

/**
 * The relay's URLs as the browser must dial them: the embedded coturn on `host` (the name by which the browser
 * reached the service, never a node's), over UDP first, then TCP for networks that block UDP.
 */
export function embeddedTurnUrls(host: string, port: number): string[] {
  const at = hostPort(host, port);
  return [`turn:${at}?transport=udp`, `turn:${at}?transport=tcp`];
}

/** A quoted-string of RFC 9110 §5.6.4: the values here are base64 and ids, but quotes must never break out. */
function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/** One `Link` header value per URL (RFC 9725 §4.4), each with the credential. */
export function linkHeaders(servers: readonly IceServer[]): string[] {
  return servers.flatMap((server) =>
    server.urls.map(
      (url) =>
        `<${url}>; rel="ice-server"; username=${quoted(server.username)}; ` +
        `credential=${quoted(server.credential)}; credential-type="password"`,
    ),
  );
}

/**
 * A `Host` header's host part, if it is a plain host name or IP address; anything else (a header an attacker
 * made up) is refused, and the caller falls back to the service's public host.
 */
export function requestHostName(hostHeader: string | undefined): string | undefined {
  if (!hostHeader) return undefined;
  const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]{1,253})(:\d{1,5})?$/.exec(hostHeader.trim());
  return match?.[1];
}
