/** The end of a session in words said once: read from the service's real answers through `readSession`. */
import { describe, expect, it } from 'vitest';
import { ready, sessionId } from '../test/fixtures';
import { api, http, HttpResponse, server } from '../test/server';
import { ENDED_HERE, readSession } from './queries/session-queries';
import { sessionEnd } from './session-end';

/** What the portal makes of the service's answer `status` with `detail`. */
async function endedFor(status: number, detail: string, previous?: typeof ready): Promise<string> {
  server.use(http.get(api('/stream/:id'), () => HttpResponse.json({ detail }, { status })));
  const { ended } = await readSession(sessionId, undefined, previous);
  if (ended === undefined) throw new Error('not ended');
  return ended;
}

describe('sessionEnd', () => {
  it('says a failure once: failed, and the service’s reason without the words before it', async () => {
    const ended = await endedFor(
      410,
      'The session failed: Broken Program 0.0.1 exited with code 1 before it was ready; it said: disk full',
    );
    expect(sessionEnd(ended, false)).toEqual({
      failed: true,
      reason: 'Broken Program 0.0.1 exited with code 1 before it was ready; it said: disk full',
    });
    // However many steps repeated the introduction.
    expect(
      sessionEnd(
        'This session has ended: it failed. The session failed: The session failed: it crashed.',
        true,
      ),
    ).toEqual({ failed: true, reason: 'it crashed.' });
  });

  it('keeps a reason that only begins like an introduction', () => {
    expect(sessionEnd('This session failed, and can no longer be watched.', false, true)).toEqual({
      failed: true,
      reason: 'This session failed, and can no longer be watched.',
    });
  });

  it('says a failure without a reason as such', async () => {
    const ended = await endedFor(410, 'The session failed: ');
    expect(sessionEnd(ended, false)).toEqual({ failed: true, reason: 'It stopped without saying why.' });
  });

  it('says that a session the page watched has ended, and that an id never seen may not exist', async () => {
    const gone = await endedFor(404, 'No such session.', ready);
    expect(sessionEnd(gone, true)).toEqual({ failed: false, reason: 'This session has ended.' });
    expect(sessionEnd(gone, false)).toEqual({
      failed: false,
      reason: 'No session has this id: it does not exist, or it has ended.',
    });
  });

  it('says who ended it when it was the person', () => {
    expect(sessionEnd(ENDED_HERE, true)).toEqual({ failed: false, reason: 'You ended this session.' });
    expect(sessionEnd('This session has ended.', true)).toEqual({
      failed: false,
      reason: 'This session has ended.',
    });
  });
});
