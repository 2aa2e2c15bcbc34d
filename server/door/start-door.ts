/**
 * Opens the door at start-up (CONTRACT §21): the media door, and the embedded coturn or a site's own relay. A
 * relay that cannot start costs the site its relayed viewers, never the service: start-up says why in one
 * sentence, and direct play and signaling through the service still work.
 */
import path from 'node:path';
import { EmbeddedCoturn, mintSecret, TurnUnavailable } from './coturn.ts';
import { Door, type Relay } from './door.ts';
import { loadDoorConfig, type DoorConfig } from './door-config.ts';
import { MediaDoor } from './media-door.ts';
import { fenceRelay, type RelayFence } from './relay-fence.ts';

/**
 * Allocations the viewers of one session may hold at once. coturn counts its quota by the TURN REST username
 * without its expiry, which is the session's id (CONTRACT §21), so a session's viewers share it: a browser takes
 * two (UDP and TCP), and one that vanished holds its own until they time out. Room for 8 viewers (a profile's
 * default) reconnecting a few times; the relay as a whole is bounded by its port range.
 */
export const SESSION_ALLOCATIONS = 64;

export interface DoorLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
  debug?(fields: object, message: string): void;
}

/** The door, and how to close what it started. */
export interface OpenDoor {
  door: Door;
  /** Stops the embedded relay and closes the media door; safe to call twice. */
  close(): Promise<void>;
}

const isLoopback = (host: string) => /^127\./.test(host);

/**
 * What the door needs of the service's settings (config.ts `ServiceConfig`, which is one): named here so that the
 * door, which the settings are made of, does not depend on them whole.
 */
export interface DoorServiceSettings {
  /** The door's own settings; absent: the defaults (direct play only). */
  door?: DoorConfig;
  /** The host key of the routes, and the address the relay advertises. */
  publicHost: string;
  /** Where the embedded relay keeps its files. */
  dataDir: string;
  /** The service's listen address. */
  host: string;
}

/** Opens the media door and the relay the settings name. Never rejects for the relay: see `door.relayProblem`. */
export async function startDoor(config: DoorServiceSettings, log: DoorLog): Promise<OpenDoor> {
  const settings = config.door ?? loadDoorConfig({});
  const { turn } = settings;
  if (turn.kind === 'off') {
    return { door: new Door(settings, null, null, config.publicHost), close: async () => {} };
  }
  let mediaDoor: MediaDoor;
  try {
    mediaDoor = await MediaDoor.open({ ...settings.mediaDoor, log });
  } catch (error) {
    const problem = `${(error as Error).message} Viewers that cannot reach a session directly will not play; set STREAMGATE_DOOR_MEDIA to a free address.`;
    log.warn({}, problem);
    return { door: new Door(settings, null, null, config.publicHost, problem), close: async () => {} };
  }
  if (turn.kind === 'site') {
    const relay: Relay = { kind: 'site', urls: turn.urls, secret: turn.secret };
    log.info(
      { urls: turn.urls, mediaDoor: mediaDoor.address },
      "The door relays through the site's TURN server",
    );
    return { door: new Door(settings, relay, mediaDoor, config.publicHost), close: () => mediaDoor.close() };
  }
  const secret = await mintSecret();
  let coturn: EmbeddedCoturn;
  try {
    coturn = await EmbeddedCoturn.start({
      runDir: path.join(config.dataDir, 'turn'),
      listenHost: config.host,
      port: turn.port,
      relayIp: isLoopback(mediaDoor.address.host) ? '127.0.0.1' : mediaDoor.address.host,
      relayPorts: turn.relayPorts,
      allowedPeers: [mediaDoor.address.host],
      secret,
      userQuota: SESSION_ALLOCATIONS,
      log,
    });
  } catch (error) {
    await mediaDoor.close();
    if (!(error instanceof TurnUnavailable)) throw error;
    log.warn({}, `${error.message} Sessions still play where the browser reaches them directly.`);
    return { door: new Door(settings, null, null, config.publicHost, error.message), close: async () => {} };
  }
  // The relay may reach the media door's address, and there the door's port alone.
  const fence: RelayFence | undefined = await fenceRelay({
    door: mediaDoor.address,
    relayPorts: turn.relayPorts,
  }).catch((error: unknown) => {
    log.warn({}, (error as Error).message);
    return undefined;
  });
  log.info(
    {
      port: turn.port,
      relayPorts: turn.relayPorts,
      mediaDoor: mediaDoor.address,
      fenced: fence !== undefined,
    },
    'The door relays through an embedded coturn (UDP and TCP)',
  );
  let closed: Promise<void> | undefined;
  return {
    door: new Door(settings, { kind: 'embedded', port: turn.port, secret }, mediaDoor, config.publicHost),
    close: () =>
      (closed ??= Promise.all([coturn.stop(), mediaDoor.close()])
        .then(() => fence?.close())
        .then(() => undefined)),
  };
}
