/**
 * The offer waits for the browser's first ICE candidate, a few milliseconds after it is made, so that it tells the
 * application where to send its connectivity checks. Without one, an application with a full ICE agent (the sample
 * application, the display host) learned the viewer's address only from the viewer's own check, and answered it with
 * a check of its own one pacing interval later: 50 or 100 ms more before the first frame, on every connection.
 * An ICE-lite application ignores the candidate and loses nothing.
 */

/**
 * Long enough for a browser's host candidates (1-5 ms after the offer on a busy 2-core machine), short enough
 * that a browser which gathers none costs less than it would have saved.
 */
export const FIRST_CANDIDATE_WAIT_MS = 50;

/** Resolves once `pc` has a candidate in its offer, has finished gathering, or `capMs` has passed. */
export function firstCandidate(pc: RTCPeerConnection, capMs = FIRST_CANDIDATE_WAIT_MS): Promise<void> {
  if (pc.iceGatheringState === 'complete' || /\na=candidate:/.test(pc.localDescription?.sdp ?? '')) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      pc.removeEventListener('icecandidate', done);
      pc.removeEventListener('icegatheringstatechange', onState);
      resolve();
    };
    const onState = () => {
      if (pc.iceGatheringState === 'complete') done();
    };
    const timer = setTimeout(done, capMs);
    // A candidate, or the null one that ends gathering.
    pc.addEventListener('icecandidate', done);
    pc.addEventListener('icegatheringstatechange', onState);
  });
}
