/** WHEP (draft-ietf-wish-whep) signaling against the application's signaling port (CONTRACT 12). */
import { hostPort } from '../routes/parse-routes';
import {
  SignalingError,
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
  request: Pick<SignalingRequest, 'endpoint' | 'mode'>,
  options: WhepTransportOptions = {},
) {
  const { endpoint, mode } = request;
  const url = new URL(
    `${options.scheme ?? 'http:'}//${hostPort(endpoint.host, endpoint.signalingPort)}${options.path ?? '/whep'}`,
  );
  if (mode === 'watch') url.searchParams.set('mode', 'watch');
  return url;
}

/** POSTs the offer, reads the answer and the resource `Location`; `close()` DELETEs that resource. */
export class WhepTransport implements SignalingTransport {
  constructor(private readonly options: WhepTransportOptions = {}) {}

  async negotiate(request: SignalingRequest, signal?: AbortSignal): Promise<SignalingSession> {
    const doFetch = this.options.fetch ?? globalThis.fetch.bind(globalThis);
    const url = whepUrl(request, this.options);
    let response: Response;
    try {
      response = await doFetch(url.toString(), {
        method: 'POST',
        headers: { 'Content-Type': 'application/sdp' },
        body: request.offer,
        signal,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new SignalingError(`The application did not answer at ${url.host}.`);
    }
    if (response.status !== 201 && response.status !== 200) {
      throw new SignalingError(
        `The application refused the connection (HTTP ${response.status}).`,
        response.status,
      );
    }
    const answer = await response.text();
    if (!answer.startsWith('v=')) throw new SignalingError('The application answered without an SDP answer.');
    const location = response.headers.get('Location');
    const resource = location ? new URL(location, url).toString() : undefined;
    return {
      answer,
      close: async () => {
        if (!resource) return;
        try {
          // keepalive lets the DELETE leave even when the page is being closed.
          await doFetch(resource, { method: 'DELETE', keepalive: true });
        } catch {
          // The application may be gone already; the viewer is stopped either way.
        }
      },
    };
  }
}
