/**
 * The `auth` of `config.json` (CONTRACT §22): where the portal signs people in. Absent or unusable, the portal
 * signs no one in and sends the token of the settings, as before.
 */

/** The site's identity provider and the portal's public client there. */
export interface AuthConfig {
  /** The issuer's URL, as its discovery document names it. */
  issuer: string;
  /** The portal's public client (authorization code with PKCE, no secret). */
  clientId: string;
  /** What the portal asks for, separated by spaces; always with `openid`. */
  scopes: string;
}

const DEFAULT_SCOPES = 'openid profile';

function scopesOf(raw: unknown): string {
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(/\s+/) : [];
  const scopes = list.filter((s): s is string => typeof s === 'string' && s !== '');
  if (scopes.length === 0) return DEFAULT_SCOPES;
  return [...new Set(['openid', ...scopes])].join(' ');
}

function issuerOf(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  try {
    const url = new URL(raw.trim());
    return url.protocol === 'https:' || url.protocol === 'http:' ? raw.trim() : undefined;
  } catch {
    return undefined;
  }
}

/** The sign-in settings of a parsed `config.json`'s `auth`, or undefined when it has none usable. */
export function parseAuthConfig(raw: unknown): AuthConfig | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const obj = raw as Record<string, unknown>;
  const issuer = issuerOf(obj.issuer);
  const clientId = typeof obj.client_id === 'string' ? obj.client_id.trim() : '';
  if (issuer === undefined || clientId === '') return undefined;
  return { issuer, clientId, scopes: scopesOf(obj.scopes) };
}
