/** The few lines the service prints once it listens: where to open it, and what it serves. */
import path from 'node:path';
import type { DoorFigures } from './door/door.ts';

/** What the banner tells. */
export interface BannerInfo {
  /** The host it listens on, as configured, and the port it got. */
  host: string;
  port: number;
  catalogPath: string;
  apps: number;
  profiles: number;
  capacity: number;
  queueLimit: number;
  dataDir: string;
  tokensPath: string | null;
  /** Sign-in with the site's identity provider (CONTRACT §22); absent: none. */
  oidc?: { issuer: string };
  /** Where sessions run: this machine (default), or Slurm jobs (their shared directory). */
  slurmDir?: string;
  /** A person is watching: say how to stop it. */
  terminal: boolean;
  /** The door (CONTRACT §21): how viewers get in when they cannot reach a session; absent: not told. */
  door?: Pick<DoorFigures, 'signaling' | 'relay' | 'relayProblem'> & { turnPort?: number };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Paths under the working directory read shorter as relative ones. */
function shown(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

/** The banner's lines, joined. A service on every interface is opened on this machine at 127.0.0.1. */
export function banner(info: BannerInfo): string {
  const everywhere = info.host === '0.0.0.0' || info.host === '::';
  const host = everywhere ? '127.0.0.1' : info.host.includes(':') ? `[${info.host}]` : info.host;
  const url = `http://${host}:${info.port}`;
  const lines = [
    `Streamgate is running at ${url}/${everywhere ? ' (listening on every interface)' : ''}`,
    `  API       ${url}/api (docs at ${url}/api/docs)`,
    `  catalog   ${shown(info.catalogPath)}: ${plural(info.apps, 'application')}, ${plural(info.profiles, 'profile')}`,
    info.slurmDir
      ? `  sessions  Slurm jobs (Slurm's queue is the queue), shared through ${shown(info.slurmDir)}; state in ${shown(info.dataDir)}`
      : `  sessions  ${info.capacity} at once, ${info.queueLimit} waiting; state in ${shown(info.dataDir)}`,
    `  access    ${access(info)}`,
  ];
  if (info.door) lines.push(`  door      ${doorLine(info.door)}`);
  if (info.terminal) lines.push('Ctrl-C stops the service and every application it started.');
  return lines.join('\n');
}

/** Who may use the service: people signed in at the identity provider, holders of tokens, or anyone. */
function access(info: BannerInfo): string {
  const tokens = info.tokensPath ? `tokens from ${shown(info.tokensPath)}` : null;
  if (!info.oidc) return tokens ?? 'no tokens file: anyone who reaches the address';
  return `people signed in at ${info.oidc.issuer}${tokens ? `, and ${tokens}` : ''}`;
}

/** How viewers get in, in one line: signaling through the service, and the relay or why there is none. */
function doorLine(door: NonNullable<BannerInfo['door']>): string {
  const signaling =
    door.signaling === 'direct'
      ? 'viewers signal to the sessions directly'
      : `WHEP through this address${door.signaling === 'auto' ? ' for sessions on other hosts' : ''}`;
  const relay =
    door.relay === 'embedded'
      ? `TURN relay on port ${door.turnPort ?? 3478} (UDP and TCP)`
      : door.relay === 'site'
        ? "the site's TURN relay"
        : `no TURN relay${door.relayProblem ? ` (${door.relayProblem})` : ''}`;
  return `${signaling}; ${relay}`;
}
