/**
 * Access tokens of the site's identity provider (CONTRACT §22). At start the issuer's discovery document and
 * signing keys are read (start-up stops with one sentence when they cannot be); then every JWT that comes as a
 * bearer token is verified here with `jose`: the signature by the issuer's keys (asymmetric algorithms only),
 * `iss`, `aud`, `exp` and `nbf` with a small clock tolerance. The person is the user claim, their roles come from
 * the groups claim.
 *
 * Keys: a token that names a key the service has not seen makes it read the issuer's keys again (the issuer
 * rotated them), at most once every 30 s; the keys are read again in the background every 10 minutes too, so
 * that keys the issuer withdrew stop being trusted. When the issuer cannot be reached, the keys last read stay
 * in use: signed-in people keep working through an outage of the identity provider.
 *
 * A verified token is remembered until it expires (by a hash of it, never the token), so that a request with a
 * known token is answered synchronously and costs no more than one with a static token.
 */
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { ConfigError } from '../config-error.ts';
import { unusableIssuerUrl, type OidcSettings } from './oidc-config.ts';
import type { Principal, Role } from './tokens.ts';

/** Seconds of difference between the issuer's clock and this one that `exp` and `nbf` forgive. */
export const CLOCK_TOLERANCE_S = 30;
/**
 * The signature algorithms a token may use: asymmetric ones only. Never `none`, and never HMAC, whose key
 * would be whatever the caller claims (a token "signed" with the issuer's public key as its secret).
 */
export const TOKEN_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];
/** How long the discovery document may take at start. */
export const DISCOVERY_TIMEOUT_MS = 10_000;
/** How long one reading of the issuer's keys may take. */
export const KEYS_TIMEOUT_MS = 5_000;
/** A key the service has not seen makes it read the keys again, but not sooner than this after the last read. */
export const KEYS_COOLDOWN_MS = 30_000;
/** The keys are read again in the background when a token is verified and they are this old. */
export const KEYS_MAX_AGE_MS = 10 * 60_000;
/** Verified tokens remembered at once; past this many, the one used least recently is forgotten. */
export const MAX_REMEMBERED_TOKENS = 10_000;
/** The longest bearer credential taken for a JWT (an access token with many groups is a few kilobytes). */
const MAX_JWT_LENGTH = 16_384;
/** `Bearer <three base64url parts>`; the third is empty in an unsigned (`alg: none`) token, refused later. */
const BEARER_JWT = /^Bearer\s+([\w-]+\.[\w-]+\.[\w-]*)\s*$/i;

/** The token of a `Bearer <JWT>` header, or null when the credential does not look like a JWT. */
export function bearerJwt(header: string): string | null {
  if (header.length > MAX_JWT_LENGTH) return null;
  return BEARER_JWT.exec(header)?.[1] ?? null;
}

/** Where warnings go (the app's logger once there is one). */
export interface OidcLog {
  warn(fields: object, message: string): void;
}

export interface OidcOptions {
  /** The clock, in milliseconds; injectable so that tests need no waiting. */
  now?: () => number;
  /** Verified tokens remembered at once; MAX_REMEMBERED_TOKENS by default. */
  maxRemembered?: number;
}

interface Remembered {
  principal: Principal;
  /** Until when, in milliseconds: the token's `exp` and the tolerance, as verification allows it. */
  until: number;
}

/** A claim by its name, or by a dotted path into nested claims (`realm_access.roles`) when none has the name. */
function claimAt(claims: JWTPayload, name: string): unknown {
  if (name in claims) return claims[name];
  let value: unknown = claims;
  for (const part of name.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** The groups in a claim: a list of names, or one name. */
function groupsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((group): group is string => typeof group === 'string') : [];
}

/** A top-level group named with its path, as Keycloak writes them (`/streamgate-admins`), is that group. */
function member(groups: string[], group: string): boolean {
  return groups.some((name) => name === group || name === `/${group}`);
}

/**
 * The person and roles that verified claims give (CONTRACT §22): the user claim, else `sub`; the admin group's
 * members are admins; without a user group everyone else is a user, with one its members are users and the
 * others viewers. Throws when the claims name nobody.
 */
export function principalOf(claims: JWTPayload, settings: OidcSettings): Principal {
  const named = claimAt(claims, settings.userClaim);
  const user = typeof named === 'string' && named !== '' ? named : claims.sub;
  if (typeof user !== 'string' || user === '') {
    throw new Error(`the token names nobody: it has neither "${settings.userClaim}" nor "sub"`);
  }
  const groups = groupsOf(claimAt(claims, settings.groupsClaim));
  let role: Role = 'user';
  if (member(groups, settings.adminGroup)) role = 'admin';
  else if (settings.userGroup !== null && !member(groups, settings.userGroup)) role = 'viewer';
  return { user, roles: [role] };
}

/** Why a request for the issuer's documents failed, in a few words. */
function networkReason(error: unknown): string {
  const failure = error as Error & { cause?: { code?: string; message?: string } };
  if (failure.name === 'TimeoutError' || failure.name === 'JWKSTimeout' || failure.name === 'AbortError') {
    return 'no answer in time';
  }
  const code = failure.cause?.code ?? (failure as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'no such host';
  if (code && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) {
    return `its TLS certificate is not trusted (${code}); NODE_EXTRA_CA_CERTS can name the site's CA`;
  }
  return failure.cause?.message ?? failure.message;
}

/** The issuer's JSON document at `url`; throws ConfigError naming `what` and why it cannot be read. */
async function readDocument(
  settings: OidcSettings,
  url: string,
  what: string,
): Promise<Record<string, unknown>> {
  const unreadable = (reason: string) =>
    new ConfigError(`STREAMGATE_OIDC_ISSUER=${settings.issuer}: cannot read ${what} at ${url} (${reason}).`);
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS),
    });
  } catch (error) {
    throw unreadable(networkReason(error));
  }
  if (!response.ok) throw unreadable(`the issuer answered HTTP ${response.status}`);
  const body: unknown = await response.json().catch(() => undefined);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw unreadable('it is not JSON');
  return body as Record<string, unknown>;
}

/** The origins of the issuer's endpoints named `names` in its discovery document. */
function originsOf(discovery: Record<string, unknown>, names: string[]): string[] {
  const origins = names.map((name) => {
    const value = discovery[name];
    return typeof value === 'string' ? (URL.parse(value)?.origin ?? null) : null;
  });
  return [...new Set(origins.filter((origin): origin is string => origin !== null && origin !== 'null'))];
}

/** Verifies the issuer's access tokens, and remembers the verified ones until they expire. */
export class OidcVerifier {
  /** Where warnings go: set by the app once it has a logger. */
  log: OidcLog | null = null;
  /** Origins the portal's pages fetch from when they sign people in (its Content-Security-Policy). */
  readonly connectOrigins: string[];
  /** Origins the portal may show in a frame (silent renewal, the issuer's session check). */
  readonly frameOrigins: string[];
  private readonly remembered = new Map<string, Remembered>();
  private readonly pending = new Map<string, Promise<Principal>>();
  private keysReadAt: number;
  private refreshing = false;

  private constructor(
    readonly settings: OidcSettings,
    /** The issuer's keys (its `jwks_uri`). */
    readonly jwksUri: string,
    private readonly keys: ReturnType<typeof createRemoteJWKSet>,
    discovery: Record<string, unknown>,
    private readonly now: () => number,
    private readonly maxRemembered: number,
  ) {
    this.keysReadAt = now();
    this.connectOrigins = originsOf(discovery, [
      'issuer',
      'token_endpoint',
      'userinfo_endpoint',
      'jwks_uri',
      'revocation_endpoint',
    ]);
    this.frameOrigins = originsOf(discovery, ['authorization_endpoint', 'check_session_iframe']);
  }

  /**
   * Reads the issuer's discovery document and keys: the start of sign-in. Throws ConfigError, in one sentence
   * naming the issuer, when either cannot be read or does not fit.
   */
  static async discover(settings: OidcSettings, options: OidcOptions = {}): Promise<OidcVerifier> {
    const url = `${settings.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const discovery = await readDocument(settings, url, 'its discovery document');
    const sentence = (problem: string) =>
      new ConfigError(
        `STREAMGATE_OIDC_ISSUER=${settings.issuer}: its discovery document at ${url} ${problem}.`,
      );
    if (discovery.issuer !== settings.issuer) {
      throw sentence(`names the issuer ${JSON.stringify(discovery.issuer)}: set exactly that`);
    }
    const jwksUri = discovery.jwks_uri;
    if (typeof jwksUri !== 'string') throw sentence('has no jwks_uri (where its signing keys are)');
    const unusable = unusableIssuerUrl(jwksUri);
    if (unusable) throw sentence(`names keys at ${jwksUri}, which ${unusable}`);
    const keys = createRemoteJWKSet(new URL(jwksUri), {
      timeoutDuration: KEYS_TIMEOUT_MS,
      cooldownDuration: KEYS_COOLDOWN_MS,
      // Never dropped for age: read again in the background instead (refreshKeys), so that an issuer that
      // cannot be reached leaves the keys last read in use.
      cacheMaxAge: Infinity,
    });
    try {
      await keys.reload();
    } catch (error) {
      const reason =
        (error as Error).name === 'JWKSInvalid' ? 'it is no JSON Web Key Set' : networkReason(error);
      throw new ConfigError(
        `STREAMGATE_OIDC_ISSUER=${settings.issuer}: cannot read its signing keys at ${jwksUri} (${reason}).`,
      );
    }
    if (!keys.jwks()?.keys.length) {
      throw new ConfigError(
        `STREAMGATE_OIDC_ISSUER=${settings.issuer}: its signing keys at ${jwksUri} are an empty set.`,
      );
    }
    return new OidcVerifier(
      settings,
      jwksUri,
      keys,
      discovery,
      options.now ?? (() => Date.now()),
      options.maxRemembered ?? MAX_REMEMBERED_TOKENS,
    );
  }

  /**
   * The caller a token names: at once when the token was verified before and has not expired, else a promise,
   * which rejects with what is wrong with the token. Concurrent requests with one new token verify it once.
   */
  check(token: string): Principal | Promise<Principal> {
    const key = createHash('sha256').update(token).digest('base64');
    const known = this.remembered.get(key);
    if (known) {
      if (known.until > this.now()) {
        // Most recently used last: the first in the map is the one forgotten when it is full.
        this.remembered.delete(key);
        this.remembered.set(key, known);
        return { user: known.principal.user, roles: [...known.principal.roles] };
      }
      this.remembered.delete(key);
    }
    let verifying = this.pending.get(key);
    if (!verifying) {
      verifying = this.verify(token, key).finally(() => this.pending.delete(key));
      this.pending.set(key, verifying);
    }
    return verifying.then((principal) => ({ user: principal.user, roles: [...principal.roles] }));
  }

  /** Tokens remembered now. */
  get rememberedCount(): number {
    return this.remembered.size;
  }

  private async verify(token: string, key: string): Promise<Principal> {
    this.refreshKeys();
    const { payload } = await jwtVerify(token, this.keys, {
      issuer: this.settings.issuer,
      audience: this.settings.audience,
      algorithms: TOKEN_ALGORITHMS,
      clockTolerance: CLOCK_TOLERANCE_S,
      requiredClaims: ['exp'],
      currentDate: new Date(this.now()),
    });
    const principal = principalOf(payload, this.settings);
    if (this.remembered.size >= this.maxRemembered) {
      const oldest = this.remembered.keys().next().value;
      if (oldest !== undefined) this.remembered.delete(oldest);
    }
    this.remembered.set(key, { principal, until: ((payload.exp ?? 0) + CLOCK_TOLERANCE_S) * 1000 });
    return principal;
  }

  /** Reads the keys again in the background once they are old; a failure keeps the keys last read. */
  private refreshKeys(): void {
    const now = this.now();
    if (this.refreshing || now - this.keysReadAt < KEYS_MAX_AGE_MS) return;
    this.refreshing = true;
    this.keysReadAt = now;
    this.keys
      .reload()
      .catch((error: unknown) => {
        this.log?.warn(
          { issuer: this.settings.issuer, reason: networkReason(error) },
          "cannot read the identity provider's signing keys again: the keys last read stay in use",
        );
      })
      .finally(() => {
        this.refreshing = false;
      });
  }
}
