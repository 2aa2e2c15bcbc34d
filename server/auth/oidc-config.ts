/**
 * The settings of sign-in with the site's identity provider (CONTRACT §22), read with the other settings in
 * config.ts and checked here, so that a bad value stops start-up with one sentence naming the variable.
 */
import { ConfigError } from '../config-error.ts';

export interface OidcSettings {
  /** STREAMGATE_OIDC_ISSUER, exactly as the issuer names itself in its discovery document. */
  issuer: string;
  /** STREAMGATE_OIDC_CLIENT_ID: the portal's public client (authorization code with PKCE, no secret). */
  clientId: string;
  /** STREAMGATE_OIDC_AUDIENCE: the `aud` access tokens must carry; the client id by default. */
  audience: string;
  /** STREAMGATE_OIDC_USER_CLAIM: the claim that names the person (`preferred_username`); `sub` when absent. */
  userClaim: string;
  /** STREAMGATE_OIDC_GROUPS_CLAIM: the claim that lists the person's groups (`groups`). */
  groupsClaim: string;
  /** STREAMGATE_OIDC_ADMIN_GROUP: its members are admins (`streamgate-admins`). */
  adminGroup: string;
  /** STREAMGATE_OIDC_USER_GROUP: null, every signed-in person is a user; else its members, the others viewers. */
  userGroup: string | null;
  /** STREAMGATE_OIDC_SCOPES: what the portal asks for when it signs a person in (`openid profile`). */
  scopes: string;
}

const PREFIX = 'STREAMGATE_OIDC_';
/** A claim's or a group's name: anything without blanks (namespaced claims are URLs). */
const NAME = /^\S{1,256}$/;
/** RFC 6749 scope tokens: printable ASCII without blanks, quotes or backslashes. */
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** Hosts a plain-HTTP issuer may have: this machine, for tests and demos. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether `url` may be an issuer's or its keys' address: HTTPS, or HTTP on this machine. Null when it may,
 * else what is wrong, as the end of a sentence.
 */
export function unusableIssuerUrl(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a URL like https://login.example.org/realms/site';
  }
  if (parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname)) return null;
  if (parsed.protocol !== 'https:') {
    return 'must be an https:// URL (http:// only on localhost or 127.0.0.1, for tests and demos)';
  }
  if (parsed.search !== '' || parsed.hash !== '' || parsed.username !== '' || parsed.password !== '') {
    return 'must have no query, fragment or credentials';
  }
  return null;
}

function named(env: NodeJS.ProcessEnv, name: string, fallback: string): string;
function named(env: NodeJS.ProcessEnv, name: string, fallback: null): string | null;
function named(env: NodeJS.ProcessEnv, name: string, fallback: string | null): string | null {
  const raw = env[PREFIX + name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!NAME.test(raw)) throw new ConfigError(`${PREFIX}${name}="${raw}" must be one name without blanks.`);
  return raw;
}

function scopesOf(env: NodeJS.ProcessEnv): string {
  const raw = env.STREAMGATE_OIDC_SCOPES?.trim() || 'openid profile';
  const scopes = raw.split(/\s+/);
  const bad = scopes.find((scope) => !SCOPE.test(scope));
  if (bad !== undefined) {
    throw new ConfigError(`STREAMGATE_OIDC_SCOPES: "${bad}" is not a scope; separate scopes with spaces.`);
  }
  if (!scopes.includes('openid')) {
    throw new ConfigError(
      `STREAMGATE_OIDC_SCOPES="${raw}" must include openid, or the portal cannot sign anyone in.`,
    );
  }
  return [...new Set(scopes)].join(' ');
}

/** The sign-in settings, or null when STREAMGATE_OIDC_ISSUER is not set (no sign-in: as before §22). */
export function loadOidcSettings(env: NodeJS.ProcessEnv): OidcSettings | null {
  const issuer = env.STREAMGATE_OIDC_ISSUER?.trim() ?? '';
  if (issuer === '') {
    const stray = Object.keys(env).find((key) => key.startsWith(PREFIX) && env[key]?.trim());
    if (stray) {
      throw new ConfigError(
        `${stray} is set but STREAMGATE_OIDC_ISSUER is not: set the issuer too, or unset ${stray}.`,
      );
    }
    return null;
  }
  const wrong = unusableIssuerUrl(issuer);
  if (wrong) throw new ConfigError(`STREAMGATE_OIDC_ISSUER=${issuer} ${wrong}.`);
  const clientId = named(env, 'CLIENT_ID', null);
  if (clientId === null) {
    throw new ConfigError(
      "STREAMGATE_OIDC_ISSUER is set but STREAMGATE_OIDC_CLIENT_ID is not: name the portal's public client.",
    );
  }
  return {
    issuer,
    clientId,
    audience: named(env, 'AUDIENCE', clientId),
    userClaim: named(env, 'USER_CLAIM', 'preferred_username'),
    groupsClaim: named(env, 'GROUPS_CLAIM', 'groups'),
    adminGroup: named(env, 'ADMIN_GROUP', 'streamgate-admins'),
    userGroup: named(env, 'USER_GROUP', null),
    scopes: scopesOf(env),
  };
}
