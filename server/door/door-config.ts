/**
 * The door's settings (CONTRACT §21): which TURN relay the service hands out, and how the portal signals. Read
 * with the other settings in config.ts, checked here so that a bad value stops start-up with one sentence.
 */
import { ConfigError } from '../config-error.ts';

/** How the portal reaches a session's WHEP endpoint: through the service, straight to the application, or
 * through the service where the routes name a host other than the service's own. */
export type SignalingMode = 'auto' | 'door' | 'direct';
export const SIGNALING_MODES: readonly SignalingMode[] = ['auto', 'door', 'direct'];

/** Where the TURN relay comes from. */
export type TurnSettings =
  /** The service runs Debian's coturn itself on `port` (UDP and TCP), relaying to the media door only. */
  | { kind: 'embedded'; port: number; relayPorts: { first: number; last: number } }
  /** A site's own TURN server(s), `use-auth-secret` with this secret. */
  | { kind: 'site'; urls: string[]; secret: string }
  /** No relay: direct play only (STREAMGATE_TURN_PORT=off). */
  | { kind: 'off' };

export interface DoorConfig {
  signaling: SignalingMode;
  turn: TurnSettings;
  /** The UDP address the TURN relay forwards to; the service forwards from it to the sessions. */
  mediaDoor: { host: string; port: number };
}

const TURN_URL = /^turns?:(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?(\?transport=(udp|tcp))?$/;

function portNumber(name: string, raw: string, min = 1): number {
  if (!/^\d{1,5}$/.test(raw) || Number(raw) < min || Number(raw) > 65535) {
    throw new ConfigError(`${name}=${raw} must be a port from ${min} to 65535.`);
  }
  return Number(raw);
}

function range(name: string, raw: string): { first: number; last: number } {
  const match = /^\s*(\d{1,5})\s*-\s*(\d{1,5})\s*$/.exec(raw);
  const first = Number(match?.[1]);
  const last = Number(match?.[2]);
  if (!match || first < 1024 || last > 65535 || first > last) {
    throw new ConfigError(`${name}=${raw} must look like 48000-48999 (ports from 1024 to 65535).`);
  }
  return { first, last };
}

function turnOf(env: NodeJS.ProcessEnv): TurnSettings {
  const urls = (env.STREAMGATE_TURN_URLS ?? '').trim();
  const secret = (env.STREAMGATE_TURN_SECRET ?? '').trim();
  if (urls !== '') {
    const list = urls.split(',').map((url) => url.trim());
    for (const url of list) {
      if (!TURN_URL.test(url)) {
        throw new ConfigError(
          `STREAMGATE_TURN_URLS: "${url}" is not a TURN URL like turn:turn.example.com:3478?transport=udp.`,
        );
      }
    }
    if (secret === '') {
      throw new ConfigError(
        'STREAMGATE_TURN_URLS is set but STREAMGATE_TURN_SECRET is not: give the static-auth-secret of that TURN server.',
      );
    }
    return { kind: 'site', urls: list, secret };
  }
  if (secret !== '') {
    throw new ConfigError(
      'STREAMGATE_TURN_SECRET is set without STREAMGATE_TURN_URLS: name the TURN server it belongs to.',
    );
  }
  const port = (env.STREAMGATE_TURN_PORT ?? '3478').trim().toLowerCase();
  if (port === 'off') return { kind: 'off' };
  return {
    kind: 'embedded',
    port: portNumber('STREAMGATE_TURN_PORT', port),
    relayPorts: range('STREAMGATE_TURN_RELAY_PORTS', env.STREAMGATE_TURN_RELAY_PORTS ?? '48000-48999'),
  };
}

function mediaDoorOf(env: NodeJS.ProcessEnv): { host: string; port: number } {
  const raw = (env.STREAMGATE_DOOR_MEDIA ?? '127.0.0.2:3480').trim();
  const match = /^(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})$/.exec(raw);
  if (!match) {
    throw new ConfigError(
      `STREAMGATE_DOOR_MEDIA=${raw} must be an IPv4 address and a port, like 127.0.0.2:3480.`,
    );
  }
  return { host: match[1] as string, port: portNumber('STREAMGATE_DOOR_MEDIA', match[2] as string) };
}

/** Reads STREAMGATE_SIGNALING, STREAMGATE_TURN_URLS/_SECRET/_PORT/_RELAY_PORTS and STREAMGATE_DOOR_MEDIA. */
export function loadDoorConfig(env: NodeJS.ProcessEnv): DoorConfig {
  const signaling = (env.STREAMGATE_SIGNALING ?? 'auto').trim().toLowerCase() || 'auto';
  if (!SIGNALING_MODES.includes(signaling as SignalingMode)) {
    throw new ConfigError(`STREAMGATE_SIGNALING=${env.STREAMGATE_SIGNALING} must be auto, door or direct.`);
  }
  return { signaling: signaling as SignalingMode, turn: turnOf(env), mediaDoor: mediaDoorOf(env) };
}
