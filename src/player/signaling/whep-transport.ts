/** WHEP (draft-ietf-wish-whep) signaling against the application's signaling port (CONTRACT 12). */
import { hostPort } from '../routes/parse-routes';
import { parseIceLinks } from './signaling-path';
import {
  SignalingError,
  type SessionGone,
  type SignalingRequest,
  type SignalingSession,
  type SignalingTransport,
} from './signaling-transport';

/** Settings of the WHEP transport; defaults fit the sample application. */
export interface WhepTransportOptions {
  /** Path of the WHEP endpoint on the signaling port. */
  path?: string;
  /** `http:` unless the application terminates TLS itself. */
  scheme?: 'http:' | 'https:';
  fetch?: typeof fetch;
}

/** The WHEP endpoint URL for an endpoint and mode. */
export function whepUrl(
  request: Pick<SignalingRequest, 'endpoint' | 'mode' | 'url'>,
  options: WhepTransportOptions = {},
) {
  const { endpoint, mode } = request;
  const url = request.url
    ? new URL(request.url, globalThis.location?.href)
    : new URL(
        `${options.scheme ?? 'http:'}//${hostPort(endpoint.host, endpoint.signalingPort)}${options.path ?? '/whep'}`,
      );
  if (mode === 'watch') url.searchParams.set('mode', 'watch');
  return url;
}

/** Why the application refused a viewer, in words a person can act on. */
async function refusal(response: Response, mode: SignalingRequest['mode']): Promise<string> {
  // A control ticket serves one connection and is asked for anew at each; a shared watch link keeps its own.
  if (response.status === 401 && mode === 'watch') {
    return 'The application did not accept this viewer’s ticket: it has expired, or the owner stopped sharing the session. Ask for a new link.';
  }
  if (response.status === 401) {
    return 'The application did not accept this viewer’s ticket; it may have expired. Reconnecting asks for a new one.';
  }
  // Its own sentence (a full viewer list, a busy port, a link its owner removed) says more than a status.
  const text = (await response.text().catch(() => '')).trim();
  if (
    (response.status === 503 || response.status === 403) &&
    text &&
    text.length < 300 &&
    !text.startsWith('<')
  ) {
    return `The application refused the connection (HTTP ${response.status}): ${text}`;
  }
  return `The application refused the connection (HTTP ${response.status}).`;
}

/**
 * What a refusal through the door says of the session: its own 410 (the session failed) and its own 404 (no
 * such session), which it writes in plain text; a 404 in JSON is a service without a door (the portal's
 * not-found answer), which says nothing of the session.
 */
function goneOf(response: Response): SessionGone | undefined {
  if (response.status === 410) return 'failed';
  const type = response.headers.get('Content-Type') ?? '';
  if (response.status === 404 && type.startsWith('text/plain')) return 'ended';
  return undefined;
}

/** POSTs the offer, reads the answer and the resource `Location`; `close()` DELETEs that resource. */
export class WhepTransport implements SignalingTransport {
  constructor(private readonly options: WhepTransportOptions = {}) {}

  async negotiate(request: SignalingRequest, signal?: AbortSignal): Promise<SignalingSession> {
    const doFetch = this.options.fetch ?? globalThis.fetch.bind(globalThis);
    const url = whepUrl(request, this.options);
    // RFC 9725 section 4.5: the ticket is a bearer token, on the POST and on the DELETE of its viewer.
    const auth: Record<string, string> = request.ticket ? { Authorization: `Bearer ${request.ticket}` } : {};
    let response: Response;
    try {
      response = await doFetch(url.toString(), {
        method: 'POST',
        headers: { 'Content-Type': 'application/sdp', ...auth },
        body: request.offer,
        signal,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new SignalingError(
        request.url
          ? `The service did not answer at ${url.host}; check the network.`
          : `The application did not answer at ${url.host}.`,
      );
    }
    if (response.status !== 201 && response.status !== 200) {
      const gone = request.url ? goneOf(response) : undefined;
      throw new SignalingError(await refusal(response, request.mode), response.status, gone);
    }
    const answer = await response.text();
    if (!answer.startsWith('v=')) throw new SignalingError('The application answered without an SDP answer.');
    const location = response.headers.get('Location');
    const resource = location ? new URL(location, url).toString() : undefined;
    return {
      answer,
      iceServers: parseIceLinks(response.headers.get('Link')),
      close: async () => {
        if (!resource) return;
        const remove = (keepalive: boolean) =>
          doFetch(resource, { method: 'DELETE', headers: auth, keepalive });
        try {
          // keepalive lets the DELETE leave even when the page is being closed; a browser that will not
          // preflight a keepalive request (the ticket header needs one) refuses it, and is asked plainly.
          await remove(true).catch(() => remove(false));
        } catch {
          // The application may be gone already; the viewer is stopped either way.
        }
      },
    };
  }
}
