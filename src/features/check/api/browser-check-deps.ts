import { createSession } from '../../../lib/api/create-session';
import { deleteSession } from '../../../lib/api/delete-session';
import { getApps } from '../../../lib/api/get-apps';
import { getProfiles } from '../../../lib/api/get-profiles';
import { getSession } from '../../../lib/api/get-session';
import { getSessions } from '../../../lib/api/get-sessions';
import { getVersions } from '../../../lib/api/get-versions';
import { doorOf, viewerTicket } from '../../../lib/api/viewer-connection';
import { getConfig, resolveBaseUrl } from '../../../lib/config';
import { getStartedSessions } from '../../../lib/session-history';
import { timerClock, type CheckApi, type CheckDeps } from './check-deps';

/** The portal's own API client, with the configured bases. */
export function portalCheckApi(): CheckApi {
  const { catalogUrl, streamUrl } = getConfig();
  return {
    catalogUrl: resolveBaseUrl(catalogUrl),
    streamUrl: resolveBaseUrl(streamUrl),
    getApps: (signal) => getApps([], signal),
    getSessions,
    getVersions,
    getProfiles,
    createSession,
    getSession,
    deleteSession,
    viewerTicket,
    doorOf,
    startedHere: () => getStartedSessions().map((s) => s.id),
  };
}

/** What the check uses in a browser: the portal's API, the page's fetch and WebRTC, real time. */
export function browserCheckDeps(video: HTMLVideoElement): CheckDeps {
  return {
    api: portalCheckApi(),
    // Looked up at each call, so that whatever replaces fetch later (a test's interceptor) sees the request.
    fetch: (input, init) => globalThis.fetch(input, init),
    createPeerConnection: (config) => new RTCPeerConnection(config),
    clock: timerClock,
    video,
  };
}
