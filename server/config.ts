/**
 * Service settings from the environment (CONTRACT section 2). Every value is checked here so that a bad
 * setting stops start-up with one message naming the variable, instead of failing later on a request.
 */
import { isIP } from 'node:net';
import path from 'node:path';
import { ConfigError } from './config-error.ts';
import type { SlurmLaunch } from './runners/slurm-tools.ts';
import { DEFAULT_ENCODER_REST_S } from '../protocol/launch.ts';
import { loadDoorConfig, type DoorConfig } from './door/door-config.ts';
import { loadOidcSettings, type OidcSettings } from './auth/oidc-config.ts';
import type { RateLimit } from './http/rate-limit.ts';

export { ConfigError };

export interface ServiceConfig {
  port: number;
  host: string;
  catalogPath: string;
  dataDir: string;
  /**
   * Tokens file; null, and no `oidc` either, means no authentication (every caller is `anonymous` with every
   * role).
   */
  tokensPath: string | null;
  /** Sign-in with the site's identity provider (STREAMGATE_OIDC_*, CONTRACT §22); absent: none. */
  oidc?: OidcSettings;
  publicHost: string;
  portRange: { first: number; last: number };
  capacity: number;
  queueLimit: number;
  allowAnonymous: boolean;
  /** The built portal; served at `/` with a fallback to index.html. */
  staticDir: string;
  /** Origins allowed to call the API from a browser besides the service's own. */
  corsOrigins: string[];
  logLevel: string;
  /** POST /stream per caller (STREAMGATE_RATE_LIMIT, STREAMGATE_RATE_BURST); null or absent: unlimited. */
  rateLimit?: RateLimit | null;
  /** Sessions pending or ready per user, admins aside (STREAMGATE_USER_LIMIT); null or absent: unlimited. */
  userLimit?: number | null;
  /**
   * The percentage of the GPUs one user's sessions may hold at once, admins aside (STREAMGATE_USER_GPU_SHARE);
   * null or absent: no share.
   */
  userGpuShare?: number | null;
  /** Further connect-src sources of the portal's Content-Security-Policy (STREAMGATE_CSP_CONNECT). */
  cspConnect?: string[];
  /** Where sessions run (STREAMGATE_RUNNER, CONTRACT §18): this machine, or Slurm jobs. */
  runner?: 'local' | 'slurm';
  /** The directory the service and the Slurm nodes share (STREAMGATE_SLURM_DIR; default <data dir>/slurm). */
  slurmDir?: string;
  /**
   * How a Slurm session starts (STREAMGATE_SLURM_LAUNCH): `batch`, a batch job (sbatch), or `step`, an interactive
   * allocation and its step (srun), allocated at its request rather than at the controller's next pass.
   */
  slurmLaunch?: SlurmLaunch;
  /** The door (CONTRACT §21): signaling through the service, the TURN relay; absent: direct play only. */
  door?: DoorConfig;
  /**
   * The reverse proxies in front of the service (STREAMGATE_TRUST_PROXY: addresses, CIDR ranges or `loopback`),
   * whose X-Forwarded-For and X-Forwarded-Host are believed; absent: none. Behind a proxy, every client would
   * otherwise have the proxy's address, and the limits per address (wrong tokens, the door's offers) would be
   * one limit for everybody.
   */
  trustProxy?: string[];
}

const repoRoot = path.resolve(import.meta.dirname, '..');
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name}=${raw} is not a whole number.`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(`${name}=${raw} must be between ${min} and ${max}.`);
  return value;
}

function portRange(env: NodeJS.ProcessEnv): { first: number; last: number } {
  const raw = env.STREAMGATE_PORT_RANGE ?? '47000-47999';
  const match = /^\s*(\d{1,5})\s*-\s*(\d{1,5})\s*$/.exec(raw);
  if (!match) throw new ConfigError(`STREAMGATE_PORT_RANGE=${raw} must look like 47000-47999.`);
  const first = Number(match[1]);
  const last = Number(match[2]);
  if (first < 1024 || last > 65535 || first > last) {
    throw new ConfigError(
      `STREAMGATE_PORT_RANGE=${raw} must be two ports from 1024 to 65535, the first not above the last.`,
    );
  }
  // Each session takes two ports (signaling and media).
  if (last - first + 1 < 2)
    throw new ConfigError(`STREAMGATE_PORT_RANGE=${raw} must hold at least two ports.`);
  return { first, last };
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '' || raw === '0' || raw === 'false' || raw === 'no') return false;
  if (raw === '1' || raw === 'true' || raw === 'yes') return true;
  throw new ConfigError(`${name}=${env[name]} must be 1 or 0.`);
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function origins(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  return raw.split(',').map((entry) => {
    const origin = entry.trim();
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      throw new ConfigError(
        `STREAMGATE_CORS_ORIGINS: "${origin}" is not an origin like https://portal.example.com.`,
      );
    }
    if (parsed.origin !== origin.replace(/\/$/, '')) {
      throw new ConfigError(
        `STREAMGATE_CORS_ORIGINS: "${origin}" must be a bare origin (scheme, host, port).`,
      );
    }
    return parsed.origin;
  });
}

/** `30/min`, `2/s`, `600/hour`, or `off`; the burst is its own setting. */
function rateLimit(env: NodeJS.ProcessEnv): RateLimit | null {
  const raw = (env.STREAMGATE_RATE_LIMIT ?? '30/min').trim().toLowerCase();
  if (raw === 'off' || raw === '0') return null;
  const match = /^(\d{1,6})\s*\/\s*(s|sec|second|min|minute|h|hour)$/.exec(raw);
  if (!match || Number(match[1]) === 0) {
    throw new ConfigError(
      `STREAMGATE_RATE_LIMIT=${env.STREAMGATE_RATE_LIMIT} must look like 30/min (or 2/s, 600/hour, off).`,
    );
  }
  const unit = match[2] ?? 'min';
  const perUnit = Number(match[1]);
  const perMinute = unit.startsWith('s') ? perUnit * 60 : unit.startsWith('h') ? perUnit / 60 : perUnit;
  return { perMinute, burst: integer(env, 'STREAMGATE_RATE_BURST', 10, 1, 100_000) };
}

/** A whole number of sessions, or `off` (or 0) for no limit. */
function userLimit(env: NodeJS.ProcessEnv): number | null {
  if (env.STREAMGATE_USER_LIMIT?.trim().toLowerCase() === 'off') return null;
  return integer(env, 'STREAMGATE_USER_LIMIT', 4, 0, 100_000) || null;
}

/** A percentage (`50` or `50%`) of the capacity, or `off` (or 0) for no share; 50 % by default. */
function userGpuShare(env: NodeJS.ProcessEnv): number | null {
  const raw = env.STREAMGATE_USER_GPU_SHARE?.trim().toLowerCase();
  if (raw === undefined || raw === '') return 50;
  if (raw === 'off') return null;
  const match = /^(\d{1,3})\s*%?$/.exec(raw);
  const percent = Number(match?.[1]);
  if (!match || percent > 100) {
    throw new ConfigError(
      `STREAMGATE_USER_GPU_SHARE=${env.STREAMGATE_USER_GPU_SHARE} must be a percentage from 0 to 100 (50%) or off.`,
    );
  }
  return percent === 0 ? null : percent;
}

function cspSources(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  return raw
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((source) => {
      // A source with ; or a quote would end the directive or add keywords such as 'unsafe-eval'.
      if (!/^(https?|wss?):\/\/[A-Za-z0-9.*[\]:-]+(\/[^\s;,'"]*)?$/.test(source)) {
        throw new ConfigError(
          `STREAMGATE_CSP_CONNECT: "${source}" must be a source like https://media.example.com:* .`,
        );
      }
      return source;
    });
}

/** Fastify's names of address ranges, beside addresses and CIDR ranges. */
const PROXY_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

function trustedProxies(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  return raw
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((entry) => {
      const [address = '', bits, ...more] = entry.split('/');
      const maxBits = isIP(address) === 6 ? 128 : 32;
      const goodBits = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
      if (PROXY_RANGES.includes(entry) || (isIP(address) !== 0 && goodBits && more.length === 0))
        return entry;
      throw new ConfigError(
        `STREAMGATE_TRUST_PROXY: "${entry}" must be an address, a CIDR range such as 10.0.0.0/8, or ${PROXY_RANGES.join(', ')}.`,
      );
    });
}

/** Reads and checks every setting; throws ConfigError with one clear message. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const host = (env.HOST ?? '127.0.0.1').trim();
  if (host === '') throw new ConfigError('HOST is empty; use an address such as 127.0.0.1.');
  const tokensPath = env.STREAMGATE_TOKENS?.trim() ? path.resolve(env.STREAMGATE_TOKENS.trim()) : null;
  const allowAnonymous = flag(env, 'STREAMGATE_ALLOW_ANONYMOUS');
  const oidc = loadOidcSettings(env);
  if (!isLoopback(host) && tokensPath === null && oidc === null && !allowAnonymous) {
    throw new ConfigError(
      `HOST=${host} is reachable from other machines but STREAMGATE_TOKENS is not set: ` +
        'set a tokens file or an identity provider (STREAMGATE_OIDC_ISSUER), or STREAMGATE_ALLOW_ANONYMOUS=1 to allow anyone.',
    );
  }
  const logLevel = (env.LOG_LEVEL ?? 'info').trim().toLowerCase();
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL=${env.LOG_LEVEL} must be one of ${LOG_LEVELS.join(', ')}.`);
  }
  const dataDir = path.resolve(env.STREAMGATE_DATA_DIR?.trim() || path.join(repoRoot, '.streamgate'));
  // Read by each display session (it reaches them through SESSION_ENV_ALLOWED): checked here, so that a wrong value
  // stops the service at start rather than every launch.
  integer(env, 'STREAMGATE_ENCODER_REST_S', DEFAULT_ENCODER_REST_S, 0, 86_400);
  const publicHost = (env.STREAMGATE_PUBLIC_HOST ?? '127.0.0.1').trim();
  if (!/^[A-Za-z0-9.:-]+$/.test(publicHost)) {
    throw new ConfigError(`STREAMGATE_PUBLIC_HOST=${publicHost} must be a host name or an IP address.`);
  }
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host,
    catalogPath: path.resolve(env.STREAMGATE_CATALOG?.trim() || path.join(repoRoot, 'catalog.yaml')),
    dataDir,
    tokensPath,
    ...(oidc ? { oidc } : {}),
    publicHost,
    portRange: portRange(env),
    capacity: integer(env, 'STREAMGATE_CAPACITY', 2, 1, 1024),
    queueLimit: integer(env, 'STREAMGATE_QUEUE_LIMIT', 16, 0, 100_000),
    allowAnonymous,
    staticDir: path.resolve(env.STREAMGATE_STATIC_DIR?.trim() || path.join(repoRoot, 'dist')),
    corsOrigins: origins(env.STREAMGATE_CORS_ORIGINS),
    logLevel,
    rateLimit: rateLimit(env),
    userLimit: userLimit(env),
    userGpuShare: userGpuShare(env),
    cspConnect: cspSources(env.STREAMGATE_CSP_CONNECT),
    ...runnerOf(env, dataDir),
    door: loadDoorConfig(env),
    trustProxy: trustedProxies(env.STREAMGATE_TRUST_PROXY),
  };
}

/** STREAMGATE_RUNNER (local or slurm) and, for Slurm, the shared directory and the way a session starts. */
function runnerOf(
  env: NodeJS.ProcessEnv,
  dataDir: string,
): Pick<ServiceConfig, 'runner' | 'slurmDir' | 'slurmLaunch'> {
  const runner = (env.STREAMGATE_RUNNER ?? 'local').trim() || 'local';
  if (runner !== 'local' && runner !== 'slurm')
    throw new ConfigError(`STREAMGATE_RUNNER=${runner} must be local or slurm.`);
  if (runner === 'local') return { runner };
  const slurmDir = path.resolve(env.STREAMGATE_SLURM_DIR?.trim() || path.join(dataDir, 'slurm'));
  const slurmLaunch = (env.STREAMGATE_SLURM_LAUNCH ?? 'batch').trim() || 'batch';
  if (slurmLaunch !== 'batch' && slurmLaunch !== 'step')
    throw new ConfigError(`STREAMGATE_SLURM_LAUNCH=${slurmLaunch} must be batch or step.`);
  return { runner, slurmDir, slurmLaunch };
}

/**
 * Origins of the pages that may connect to applications' signaling ports: the portal as this service
 * serves it (by each name of a loopback address, and by the public host), and STREAMGATE_CORS_ORIGINS.
 */
export function portalOrigins(
  config: Pick<ServiceConfig, 'host' | 'port' | 'publicHost' | 'corsOrigins'>,
): string[] {
  const hostPort = (host: string) => `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
  const hosts = isLoopback(config.host) ? ['127.0.0.1', 'localhost', '::1'] : [config.host];
  const own = [...hosts, config.publicHost].filter((host) => host !== '0.0.0.0' && host !== '::');
  return [...new Set([...own.map(hostPort), ...config.corsOrigins])];
}
