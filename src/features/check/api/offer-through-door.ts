/**
 * Signaling through the service's door (CONTRACT §21): an SDP offer from this browser, posted to the session's
 * WHEP endpoint on the service's own origin, must come back answered; the viewer it made is then removed.
 */
import type { ViewerTicket } from '../../../player';
import { within, type CheckDeps } from './check-deps';
import { StepFailure } from './check-report';

/** An offer the door has not answered within this long has failed. */
export const DOOR_TIMEOUT_MS = 10_000;

/** This browser's peer connection, or why it has none. */
export function newPeer(deps: Pick<CheckDeps, 'createPeerConnection'>, config: RTCConfiguration) {
  try {
    return deps.createPeerConnection(config);
  } catch (error) {
    throw new StepFailure(
      `This browser cannot make WebRTC connections: ${error instanceof Error ? error.message : String(error)}`,
      'Use a current version of Chrome, Edge, Firefox or Safari, without extensions that turn WebRTC off.',
    );
  }
}

/** A short sentence of the door's own words, where it gave one (not an HTML page). */
function said(body: string): string {
  const text = body.trim();
  return text && text.length < 300 && !text.startsWith('<') ? `: ${text.replace(/[.\s]+$/, '')}` : '';
}

/** Why the door did not answer with an SDP answer, and what to do. */
function refusal(status: number, body: string): StepFailure {
  const words = said(body);
  if (status === 401 || status === 403)
    return new StepFailure(
      `The service refused this viewer’s ticket (HTTP ${status})${words}.`,
      'Run the check again; if it fails again, tell the administrator: the session does not accept the ' +
        'service’s viewer tickets.',
    );
  if (status === 404 || status === 405)
    return new StepFailure(
      `The service has no door for this session (HTTP ${status})${words}.`,
      'Ask the administrator to update the service: without its door, a browser that cannot reach the ' +
        'session’s own host cannot play.',
    );
  if (status === 502 || status === 503 || status === 504)
    return new StepFailure(
      `The service could not reach the session’s application (HTTP ${status})${words}.`,
      'Tell the administrator: the service cannot reach the host the session runs on.',
    );
  return new StepFailure(
    `The service answered the offer with HTTP ${status}${words}.`,
    'Run the check again; if it fails again, tell the administrator what this page says.',
  );
}

/**
 * Posts a recvonly-video offer to `doorUrl` with the ticket, and removes the viewer it made. Resolves to the
 * time the answer took, in ms.
 */
export async function offerThroughDoor(
  deps: CheckDeps,
  doorUrl: string,
  ticket: ViewerTicket | undefined,
  signal?: AbortSignal,
): Promise<number> {
  const pc = newPeer(deps, {});
  try {
    pc.addTransceiver('video', { direction: 'recvonly' });
    const offer = await pc.createOffer();
    await pc.setLocalDescription(offer);
    const sdp = pc.localDescription?.sdp ?? offer.sdp ?? '';
    const auth: Record<string, string> = ticket ? { Authorization: `Bearer ${ticket.ticket}` } : {};
    const sent = deps.clock.now();
    const late = () =>
      new StepFailure(
        `The service did not answer the offer within ${DOOR_TIMEOUT_MS / 1000} s.`,
        'Run the check again; if it fails again, tell the administrator: the service’s door is slow to answer.',
      );
    // The body is read within the time allowed too: the request's signal aborts once `within` is over.
    const { response, answer } = await within(
      deps.clock,
      DOOR_TIMEOUT_MS,
      async (inner) => {
        const answered = await deps
          .fetch(doorUrl, {
            method: 'POST',
            headers: { 'Content-Type': 'application/sdp', ...auth },
            body: sdp,
            signal: inner,
          })
          .catch((error: unknown) => {
            signal?.throwIfAborted();
            if (inner.aborted) throw error;
            throw new StepFailure(
              `The service did not answer the offer at ${new URL(doorUrl).origin}.`,
              'Check that this network lets the browser reach the service, then run the check again.',
            );
          });
        return { response: answered, answer: await answered.text().catch(() => '') };
      },
      late,
      signal,
    );
    if (response.status !== 201 && response.status !== 200) throw refusal(response.status, answer);
    const took = deps.clock.now() - sent;
    const location = response.headers.get('Location');
    // The viewer is removed at once: it was made only to see that the door answers.
    if (location)
      await deps
        .fetch(new URL(location, doorUrl).toString(), { method: 'DELETE', headers: auth })
        .catch(() => undefined);
    if (!answer.startsWith('v='))
      throw new StepFailure(
        'The service answered the offer without an SDP answer.',
        'Tell the administrator what this page says: something between this browser and the service changes its answers.',
      );
    return took;
  } finally {
    pc.close();
  }
}
