/**
 * Viewer tickets (CONTRACT section 14), shared by the service that issues them and the applications that
 * check them: a JWT (HS256, signed with jose) for one session and one scope, with an expiry. The key is
 * the session's own secret, which the service gives the application at launch; a ticket of one session
 * is worth nothing to another.
 *
 * jose: maintained, dependency-free, the same code in Node and browsers, and it checks the algorithm,
 * audience, subject and expiry itself, which is where hand-written token code usually goes wrong.
 */
import { errors, jwtVerify, SignJWT } from 'jose';

export type TicketScope = 'control' | 'watch';
export const TICKET_SCOPES: readonly TicketScope[] = ['control', 'watch'];

/** Who a ticket is for: the `aud` of every ticket. */
const AUDIENCE = 'streamgate-viewer';
/** A ticket's size is bounded before any parsing: these are ~250 characters. */
const MAX_TICKET_LENGTH = 2048;

/** The environment variable through which an application receives its session's secret. */
export const SECRET_ENV = 'STREAMGATE_VIEWER_SECRET';

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
}

/** Signs a ticket for `sessionId` and `scope`, valid for `ttlS` seconds from now. */
export async function signTicket(
  secret: Uint8Array,
  sessionId: string,
  scope: TicketScope,
  ttlS: number,
  now = Date.now(),
): Promise<IssuedTicket> {
  const issuedAt = Math.floor(now / 1000);
  const expiresAt = issuedAt + Math.max(1, Math.floor(ttlS));
  const ticket = await new SignJWT({ scope })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(sessionId)
    .setAudience(AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .setJti(crypto.randomUUID())
    .sign(secret);
  return { ticket, scope, expires_at: new Date(expiresAt * 1000).toISOString() };
}

/** The grant of `ticket` for `sessionId`, or null when it is malformed, forged, expired or another's. */
export async function verifyTicket(
  secret: Uint8Array,
  sessionId: string,
  ticket: string,
): Promise<TicketGrant | null> {
  if (ticket.length === 0 || ticket.length > MAX_TICKET_LENGTH) return null;
  try {
    const { payload } = await jwtVerify(ticket, secret, {
      algorithms: ['HS256'],
      audience: AUDIENCE,
      subject: sessionId,
      requiredClaims: ['exp', 'scope'],
    });
    const scope = payload.scope;
    if (scope !== 'control' && scope !== 'watch') return null;
    return { scope, expiresAt: payload.exp as number };
  } catch (error) {
    if (error instanceof errors.JOSEError) return null;
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

/** The secret from the environment; null when absent, an error when present but unusable. */
export function decodeSecret(text: string | undefined): Uint8Array | null {
  if (text === undefined || text === '') return null;
  const bytes = Buffer.from(text, 'base64url');
  if (bytes.length < 32) throw new Error(`${SECRET_ENV} must hold at least 32 bytes (base64url).`);
  return new Uint8Array(bytes);
}
