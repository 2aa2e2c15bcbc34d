/**
 * Run-time configuration of the portal: `config.json` served beside `index.html` (so a deployment changes it
 * without a rebuild), overridden for one browser by the settings page (localStorage).
 */
import { parseAuthConfig, type AuthConfig } from './auth/auth-config';

/** The portal's configuration (CONTRACT section 13). */
export interface PortalConfig {
  /** Base URL of the configuration API (the part before `/cfg/apps`). */
  catalogUrl: string;
  /** Base URL of the streaming API (the part before `/stream`). */
  streamUrl: string;
  /** Which player the viewer uses; only `whep` exists today. */
  player: string;
  /** Bearer token sent with every request, or null for none. */
  token: string | null;
  /**
   * How viewers reach a session's WHEP endpoint (CONTRACT §21): `door` through the streaming API's own origin,
   * `direct` to the application's signaling port, `auto` through the door where the routes name another host.
   */
  signaling: 'auto' | 'door' | 'direct';
  /** The site's identity provider, where the portal signs people in (CONTRACT §22); absent: it signs no one in. */
  auth?: AuthConfig;
}

/** The overrides one browser may set on the settings page. */
export type ConfigOverrides = Partial<Pick<PortalConfig, 'catalogUrl' | 'streamUrl' | 'token'>>;

/** Used when `config.json` is missing or unreadable, so the portal still talks to its own origin. */
export const DEFAULT_CONFIG: PortalConfig = {
  catalogUrl: '/api',
  streamUrl: '/api',
  player: 'whep',
  token: null,
  signaling: 'auto',
};

/** localStorage key of the settings page's overrides. */
export const OVERRIDES_KEY = 'streamgate.settings';

let fileConfig: PortalConfig = DEFAULT_CONFIG;
let revision = 0;

function readString(value: unknown, fallback: string): string {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : fallback;
}

/** Turns any parsed JSON into a complete configuration, keeping defaults for what is missing or of the wrong type. */
export function parseConfig(raw: unknown): PortalConfig {
  const obj = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  const token = typeof obj.token === 'string' && obj.token !== '' ? obj.token : null;
  const auth = parseAuthConfig(obj.auth);
  return {
    catalogUrl: readString(obj.catalogUrl, DEFAULT_CONFIG.catalogUrl),
    streamUrl: readString(obj.streamUrl, DEFAULT_CONFIG.streamUrl),
    player: readString(obj.player, DEFAULT_CONFIG.player),
    token,
    signaling:
      obj.signaling === 'door' || obj.signaling === 'direct' || obj.signaling === 'auto'
        ? obj.signaling
        : DEFAULT_CONFIG.signaling,
    ...(auth ? { auth } : {}),
  };
}

/**
 * Why `base` cannot be the base of an API, in words, or undefined when it can: an http(s) address or a path
 * on this site. Anything else (`javascript:`, `data:`, `file:`) is never fetched from nor saved.
 */
export function baseUrlProblem(base: string): string | undefined {
  const text = base.trim();
  if (text === '') return 'Enter an address, e.g. /api or https://host/applications.';
  let url: URL;
  try {
    url = new URL(text, 'http://portal.invalid/');
  } catch {
    return `“${text}” is not an address; enter an http(s) address or a path such as /api.`;
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') return undefined;
  return `Only an http(s) address or a path such as /api can be used, not a “${url.protocol}” address.`;
}

/** The overrides saved in this browser (empty when none or when storage is unavailable). */
export function getOverrides(): ConfigOverrides {
  try {
    const text = globalThis.localStorage?.getItem(OVERRIDES_KEY);
    if (!text) return {};
    const obj = JSON.parse(text) as Record<string, unknown>;
    const out: ConfigOverrides = {};
    // An unsafe address saved before it was refused at the field is ignored, not used.
    const usable = (v: unknown): v is string => typeof v === 'string' && baseUrlProblem(v) === undefined;
    if (usable(obj.catalogUrl)) out.catalogUrl = obj.catalogUrl;
    if (usable(obj.streamUrl)) out.streamUrl = obj.streamUrl;
    if (typeof obj.token === 'string' || obj.token === null) out.token = obj.token === '' ? null : obj.token;
    return out;
  } catch {
    // Private mode or a corrupt entry: fall back to the served configuration.
    return {};
  }
}

/** The effective configuration: `config.json` with this browser's overrides on top. */
export function getConfig(): PortalConfig {
  return { ...fileConfig, ...getOverrides() };
}

/** A number that changes whenever the effective configuration may have changed (clients cache on it). */
export function getConfigRevision(): number {
  return revision;
}

function changed(): void {
  revision += 1;
}

/** Saves this browser's overrides (replacing earlier ones); clients see a new revision. */
export function saveOverrides(overrides: ConfigOverrides): void {
  globalThis.localStorage?.setItem(OVERRIDES_KEY, JSON.stringify(overrides));
  changed();
}

/** Forgets this browser’s overrides; clients see a new revision. */
export function clearOverrides(): void {
  globalThis.localStorage?.removeItem(OVERRIDES_KEY);
  changed();
}

/** Sets the served configuration directly (start-up, and tests). */
export function setFileConfig(config: PortalConfig): void {
  fileConfig = config;
  changed();
}

/**
 * Reads `config.json` once at start-up. A missing or broken file is not fatal: the defaults point at the
 * portal's own origin, which is where the reference service serves the API.
 */
export async function loadConfig(
  url = `${import.meta.env.BASE_URL ?? '/'}config.json`,
): Promise<PortalConfig> {
  try {
    const res = await fetch(url, { cache: 'no-store' });
    setFileConfig(res.ok ? parseConfig(await res.json()) : DEFAULT_CONFIG);
  } catch {
    setFileConfig(DEFAULT_CONFIG);
  }
  return getConfig();
}

/** Resolves a base URL that may be relative (`/api`) against the page, without a trailing slash. */
export function resolveBaseUrl(base: string): string {
  const origin = globalThis.location?.href ?? 'http://localhost/';
  return new URL(base, origin).toString().replace(/\/+$/, '');
}
