/**
 * Viewer tickets (CONTRACT section 14), shared by the service that issues them and the applications that
 * check them: a JWT (HS256, signed with jose) for one session and one scope, with an expiry. The key is
 * the session's own secret, which the service gives the application at launch; a ticket of one session
 * is worth nothing to another.
 *
 * jose: maintained, dependency-free, the same code in Node and browsers, and it checks the algorithm,
 * audience, subject and expiry itself, which is where hand-written token code usually goes wrong.
 */
import { closeSync, readFileSync } from 'node:fs';
import { decodeJwt, errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';

export type TicketScope = 'control' | 'watch';
export const TICKET_SCOPES: readonly TicketScope[] = ['control', 'watch'];

/**
 * The longest a control ticket lives, whatever is asked: long enough to connect (the portal asks for a new
 * one at each connection). An application also refuses a control ticket older than this, whatever its expiry.
 */
export const CONTROL_TICKET_MAX_S = 120;

/** Who a ticket is for: the `aud` of every viewer ticket. */
const AUDIENCE = 'streamgate-viewer';
/** The `aud` of the service's own tickets (`signServiceTicket`), which no viewer ticket has. */
const SERVICE_AUDIENCE = 'streamgate-service';
/** How long a service ticket lives: one call of the service to its application. */
const SERVICE_TTL_S = 30;
/** The longest person's name a ticket carries (longer ones are cut). */
export const MAX_NAME_LENGTH = 64;
/** A ticket's size is bounded before any parsing: these are ~250 characters. */
const MAX_TICKET_LENGTH = 2048;

/**
 * The environment variable through which an application that streams itself (a catalog `launch.command`)
 * receives its session's secret (CONTRACT section 14).
 */
export const SECRET_ENV = 'STREAMGATE_VIEWER_SECRET';
/**
 * The sample application and the display host receive it through a file instead, never their environment
 * (CONTRACT section 17): this variable names the file, `/dev/fd/N` for the pipe the service writes it on.
 */
export const SECRET_FILE_ENV = 'STREAMGATE_VIEWER_SECRET_FILE';

export interface IssuedTicket {
  ticket: string;
  scope: TicketScope;
  /** RFC 3339. */
  expires_at: string;
}

/** What a valid ticket grants. */
export interface TicketGrant {
  scope: TicketScope;
  /** Seconds since the epoch. */
  expiresAt: number;
  /**
   * When it was issued, in milliseconds since the epoch (its `issued_ms`, else its `iat`): stopping sharing
   * refuses the watch tickets issued until then.
   */
  issuedMs: number;
  /** Its id: a control ticket serves one connection, which the application remembers by it. */
  jti: string;
  /**
   * Who it was issued to, as the service names the person (their user claim), for the people a viewer shows;
   * absent on watch tickets (a watch link is anyone's: its viewers are guests).
   */
  name?: string;
}

/** What the service tells its application with a service ticket (`POST /sharing/stop` on the signaling port). */
export interface ServiceOrder {
  /** Watch tickets issued at or before this (ms since the epoch) are refused, and their viewers dropped. */
  watchCutoffMs: number;
  jti: string;
  /** Seconds since the epoch. */
  expiresAt: number;
}

/**
 * Signs a ticket for `sessionId` and `scope`, valid for `ttlS` seconds from `now`. `issuedMs` (default `now`)
 * is the issue time a stop of sharing compares: the service gives a later one to tickets issued in the
 * millisecond of a stop.
 */
export async function signTicket(
  secret: Uint8Array,
  sessionId: string,
  scope: TicketScope,
  ttlS: number,
  now = Date.now(),
  issuedMs = now,
  name?: string,
): Promise<IssuedTicket> {
  const issuedAt = Math.floor(now / 1000);
  const expiresAt = issuedAt + Math.max(1, Math.floor(ttlS));
  const claims = { scope, issued_ms: issuedMs, ...(name ? { name: name.slice(0, MAX_NAME_LENGTH) } : {}) };
  const ticket = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(sessionId)
    .setAudience(AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .setJti(crypto.randomUUID())
    .sign(secret);
  return { ticket, scope, expires_at: new Date(expiresAt * 1000).toISOString() };
}

/**
 * The grant of `ticket` for `sessionId` at `now`, or null when it is malformed, forged, expired or another's.
 * Whether it was used already is the application's to know (streamer/viewer-access.ts).
 */
export async function verifyTicket(
  secret: Uint8Array,
  sessionId: string,
  ticket: string,
  now = Date.now(),
): Promise<TicketGrant | null> {
  const payload = await verified(secret, sessionId, ticket, AUDIENCE, now);
  const scope = payload?.scope;
  if (!payload || (scope !== 'control' && scope !== 'watch')) return null;
  const issuedMs = Number.isFinite(payload.issued_ms) ? (payload.issued_ms as number) : payload.iat! * 1000;
  const name = typeof payload.name === 'string' && payload.name !== '' ? { name: payload.name } : {};
  return { scope, expiresAt: payload.exp!, issuedMs, jti: payload.jti!, ...name };
}

/**
 * A ticket of the service itself for one call to `sessionId`'s files (`/files` on the signaling port, which
 * accepts nothing else): the service decided who may touch the session's files (protocol/files.ts). It lives
 * 30 s; unlike the order below it may serve several requests of that call (a listing, then its download).
 */
export function signFilesTicket(secret: Uint8Array, sessionId: string, now = Date.now()): Promise<string> {
  return signForApplication(secret, sessionId, { scope: 'files' }, now);
}

/** A ticket of the service's own audience for `sessionId`'s application, with `claims`, living SERVICE_TTL_S. */
function signForApplication(
  secret: Uint8Array,
  sessionId: string,
  claims: Record<string, unknown>,
  now: number,
): Promise<string> {
  const issuedAt = Math.floor(now / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(sessionId)
    .setAudience(SERVICE_AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + SERVICE_TTL_S)
    .setJti(crypto.randomUUID())
    .sign(secret);
}

/** Whether `ticket` is a valid files ticket of `sessionId` (signFilesTicket) at `now`. */
export async function verifyFilesTicket(
  secret: Uint8Array,
  sessionId: string,
  ticket: string,
  now = Date.now(),
): Promise<boolean> {
  const payload = await verified(secret, sessionId, ticket, SERVICE_AUDIENCE, now);
  return payload?.scope === 'files';
}

/**
 * A ticket of the service itself, never issued to people: it orders `sessionId`'s application to refuse the
 * watch tickets issued at or before `watchCutoffMs` and to drop their viewers. It lives 30 s and, like a
 * control ticket, is good for one use.
 */
export function signServiceTicket(
  secret: Uint8Array,
  sessionId: string,
  watchCutoffMs: number,
  now = Date.now(),
): Promise<string> {
  return signForApplication(secret, sessionId, { scope: 'service', watch_cutoff_ms: watchCutoffMs }, now);
}

/** The order a service ticket carries, or null when it is not a valid service ticket of `sessionId`. */
export async function verifyServiceTicket(
  secret: Uint8Array,
  sessionId: string,
  ticket: string,
  now = Date.now(),
): Promise<ServiceOrder | null> {
  const payload = await verified(secret, sessionId, ticket, SERVICE_AUDIENCE, now);
  const cutoff = payload?.watch_cutoff_ms;
  if (!payload || payload.scope !== 'service' || typeof cutoff !== 'number' || !Number.isFinite(cutoff))
    return null;
  return { watchCutoffMs: cutoff, jti: payload.jti!, expiresAt: payload.exp! };
}

/** The claims of a well-signed, unexpired ticket of `sessionId` for `audience` with an id, or null. */
async function verified(
  secret: Uint8Array,
  sessionId: string,
  ticket: string,
  audience: string,
  now: number,
): Promise<JWTPayload | null> {
  if (ticket.length === 0 || ticket.length > MAX_TICKET_LENGTH) return null;
  try {
    const { payload } = await jwtVerify(ticket, secret, {
      algorithms: ['HS256'],
      audience,
      subject: sessionId,
      requiredClaims: ['exp', 'iat', 'jti', 'scope'],
      currentDate: new Date(now),
    });
    return typeof payload.jti === 'string' ? payload : null;
  } catch (error) {
    if (error instanceof errors.JOSEError) return null;
    throw error;
  }
}

/**
 * Whether `token` has the form of a viewer ticket (a JWT for the viewers' audience), unverified: what tells a
 * ticket from an API token or an access token before the session's secret is at hand. Only a check with that
 * secret (`verifyTicket`) says what it grants.
 */
export function isViewerTicket(token: string): boolean {
  if (token.length === 0 || token.length > MAX_TICKET_LENGTH) return false;
  try {
    return decodeJwt(token).aud === AUDIENCE;
  } catch (error) {
    if (error instanceof errors.JOSEError) return false;
    throw error;
  }
}

/** The token of an `Authorization: Bearer <token>` header (RFC 6750), or null. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header ?? '');
  return match ? (match[1] as string) : null;
}

/** The secret as it travels in the environment. */
export function encodeSecret(secret: Uint8Array): string {
  return Buffer.from(secret).toString('base64url');
}

/** The secret as it travelled; null when absent, an error when present but unusable. */
export function decodeSecret(text: string | undefined, source = SECRET_ENV): Uint8Array | null {
  if (text === undefined || text.trim() === '') return null;
  const bytes = Buffer.from(text.trim(), 'base64url');
  if (bytes.length < 32) throw new Error(`${source} must hold at least 32 bytes (base64url).`);
  return new Uint8Array(bytes);
}

/**
 * Reads the secret once from the file `file` names (SECRET_FILE_ENV); a pipe (`/dev/fd/N`) is read to its end
 * and closed, so that nothing this process starts inherits it. Null when no file is named.
 */
export function readSecretFile(file: string | undefined): Uint8Array | null {
  if (file === undefined || file === '') return null;
  const pipe = /^\/dev\/fd\/(\d+)$/.exec(file);
  let text: string;
  if (pipe) {
    const fd = Number(pipe[1]);
    try {
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } else {
    text = readFileSync(file, 'utf8');
  }
  return decodeSecret(text, SECRET_FILE_ENV);
}
