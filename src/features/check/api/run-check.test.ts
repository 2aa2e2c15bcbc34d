/** The connection check's steps in order, on fake time, over MSW and a fake browser network. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ready, sessionId } from '../../../test/fixtures';
import { api, http, HttpResponse, server } from '../../../test/server';
import { checkService } from '../testing/check-service';
import { FakeNetworkPeer, framingVideo, resetFakeNetwork } from '../testing/fake-network';
import { portalCheckApi } from './browser-check-deps';
import { timerClock, type CheckDeps } from './check-deps';
import type { StepReport } from './check-report';
import { READY_TIMEOUT_MS } from './test-session';
import { runCheck } from './run-check';
import { rememberSession } from '../../../lib/session-history';

beforeEach(() => {
  vi.useFakeTimers();
  resetFakeNetwork();
  localStorage.clear();
});
afterEach(() => {
  vi.useRealTimers();
});

function deps(): CheckDeps {
  return {
    api: portalCheckApi(),
    fetch: (input, init) => globalThis.fetch(input, init),
    createPeerConnection: (config) => new FakeNetworkPeer(config) as unknown as RTCPeerConnection,
    clock: timerClock,
    video: framingVideo(),
  };
}

/** Runs the check on fake time to its end; returns every report it gave, and the last. */
async function check(signal = new AbortController().signal) {
  const reports: StepReport[][] = [];
  let done = false;
  const run = runCheck(deps(), (steps) => reports.push(steps), signal).finally(() => (done = true));
  run.catch(() => undefined);
  for (let ms = 0; ms < 120_000 && !done; ms += 100) await vi.advanceTimersByTimeAsync(100);
  return { last: await run, reports };
}

const statuses = (steps: StepReport[]) => steps.map((s) => `${s.name}: ${s.status}`);
const step = (steps: StepReport[], id: StepReport['id']) => steps.find((s) => s.id === id)!;

describe('the connection check', () => {
  it('passes every step with a test session of the first application, and ends that session', async () => {
    const asked = checkService();
    const { last, reports } = await check();
    expect(statuses(last)).toEqual([
      "The service's API: passed",
      'Signaling through the service: passed',
      'Network: direct, relay over UDP, relay over TCP: passed',
      'First frame: passed',
    ]);
    // In order: each step ran before the next one started.
    expect(statuses(reports[0]!).every((s) => s.endsWith('waiting'))).toBe(true);
    expect(reports.findIndex((r) => step(r, 'signaling').status === 'running')).toBeGreaterThan(
      reports.findIndex((r) => step(r, 'api').status === 'passed'),
    );
    expect(step(last, 'api').detail).toBe(
      'The catalog API lists 2 applications; the streaming API lists 0 sessions.',
    );
    // The catalog's first application, its latest version, the first profile that applies to it.
    expect(asked.launched).toEqual([{ id: 'usd-viewer', version: '2.0.0', profile: 'default' }]);
    expect(step(last, 'signaling').detail).toMatch(
      /^Tested with a test session of USD Viewer 2\.0\.0 \(Default\), ready in \d+\.\d s\. The service answered an offer through its door in \d+ ms\.$/,
    );
    expect(step(last, 'network').detail).toBe(
      'Candidates: 1 host (direct), 1 relay over UDP, 1 relay over TCP.',
    );
    expect(step(last, 'network').warning).toBeUndefined();
    expect(step(last, 'frame').detail).toMatch(/^The first frame arrived in \d+\.\d s; path: relay UDP\.$/);
    // A control offer with its ticket, then the player's watch offer with a fresh watch ticket.
    expect(asked.tickets).toEqual(['control', 'watch']);
    expect(asked.offers).toEqual([
      { id: sessionId, mode: null, auth: 'Bearer control-ticket' },
      { id: sessionId, mode: 'watch', auth: 'Bearer watch-ticket' },
    ]);
    expect(asked.viewersRemoved).toEqual(['v1', 'v2']);
    expect(asked.ended).toEqual([sessionId]);
  });

  it('names the API step when the service does not answer, skips the rest, and launches nothing', async () => {
    const asked = checkService();
    server.use(http.get(api('/cfg/apps'), () => HttpResponse.error()));
    const { last } = await check();
    expect(statuses(last)).toEqual([
      "The service's API: failed",
      'Signaling through the service: skipped',
      'Network: direct, relay over UDP, relay over TCP: skipped',
      'First frame: skipped',
    ]);
    expect(step(last, 'api').detail).toMatch(
      /^The catalog API did not answer GET http:\/\/[^ ]+\/api\/cfg\/apps: The service could not be reached\./,
    );
    expect(step(last, 'api').advice).toMatch(/service is running/);
    expect(asked.launched).toEqual([]);
    expect(asked.ended).toEqual([]);
  });

  it('names the network step with the relay’s port when neither UDP nor TCP reach it, and ends the session', async () => {
    resetFakeNetwork({ udp: false, tcp: false });
    const asked = checkService();
    const { last } = await check();
    expect(statuses(last).slice(2)).toEqual([
      'Network: direct, relay over UDP, relay over TCP: failed',
      'First frame: skipped',
    ]);
    expect(step(last, 'network').detail).toBe(
      'The relay at portal.example.com:3478 cannot be reached over UDP or TCP (port 3478 is blocked): ask your ' +
        'network administrator to open port 3478 (UDP and TCP) to portal.example.com, or use another network. ' +
        'Candidates: 1 host (direct), 0 relay over UDP, 0 relay over TCP (gathering stopped after 5 s).',
    );
    expect(asked.ended).toEqual([sessionId]);
  });

  it('passes the network step with a warning when only UDP is blocked, and plays over TCP', async () => {
    resetFakeNetwork({ udp: false });
    checkService();
    const { last } = await check();
    expect(step(last, 'network')).toMatchObject({
      status: 'passed',
      detail:
        'Candidates: 1 host (direct), 0 relay over UDP, 1 relay over TCP (gathering stopped after 5 s).',
      warning:
        'UDP to port 3478 is blocked: the stream will go over TCP, a little slower; ask for UDP to port 3478 to ' +
        'be opened.',
    });
    expect(step(last, 'frame')).toMatchObject({
      status: 'passed',
      detail: expect.stringMatching(/path: relay TCP/),
    });
  });

  it('says that a service with no relay leaves only direct play, as a warning', async () => {
    checkService({ relays: [] });
    const { last } = await check();
    expect(step(last, 'network')).toMatchObject({
      status: 'passed',
      warning: 'The service offers no relay: only direct play is possible.',
    });
    expect(step(last, 'frame').detail).toMatch(/path: direct\.$/);
  });

  it('tests with the person’s ready session, says so, and leaves it running', async () => {
    const own = { ...ready, app: 'usd-viewer', version: '1.2.0', profile: 'small' };
    rememberSession({ id: sessionId, app: 'usd-viewer', version: '1.2.0', profile: 'small', startedAt: 0 });
    const asked = checkService({ sessions: [own] });
    const { last } = await check();
    expect(statuses(last).every((s) => s.endsWith('passed'))).toBe(true);
    expect(step(last, 'signaling').detail).toMatch(
      new RegExp(`^Tested with your ready session usd-viewer 1\\.2\\.0 \\(small\\), ${sessionId}\\.`),
    );
    expect(asked.launched).toEqual([]);
    expect(asked.ended).toEqual([]);
  });

  it('does not join a ready session this browser did not start (an admin’s list holds other people’s)', async () => {
    const asked = checkService({ sessions: [{ ...ready, id: crypto.randomUUID() }] });
    await check();
    expect(asked.launched).toHaveLength(1);
  });

  it('gives a test session 60 s to be ready, then fails in words and ends it', async () => {
    const asked = checkService({ pendingPolls: Infinity });
    const { last } = await check();
    expect(step(last, 'signaling')).toMatchObject({
      status: 'failed',
      detail: `The test session was not ready within ${READY_TIMEOUT_MS / 1000} s; the service said last: “Waiting for a free GPU: 1 session ahead”.`,
    });
    expect(asked.ended).toEqual([sessionId]);
  });

  it('fails the first frame with the player’s reason when no video comes, and ends the session', async () => {
    resetFakeNetwork({ video: false });
    const asked = checkService();
    const { last } = await check();
    expect(step(last, 'frame')).toMatchObject({
      status: 'failed',
      detail: 'No first frame within 15 s: the service answered, but no video arrived.',
    });
    expect(asked.ended).toEqual([sessionId]);
    // The player left the session's application.
    expect(asked.viewersRemoved).toEqual(['v1', 'v2']);
  });

  it('fails the first frame with the player’s reason when the door refuses the watcher', async () => {
    const asked = checkService();
    server.use(
      http.post(api('/stream/:id/whep'), ({ request }) =>
        new URL(request.url).searchParams.get('mode') === 'watch'
          ? HttpResponse.text('This session has its 8 viewers already.', { status: 503 })
          : undefined,
      ),
    );
    const { last } = await check();
    expect(step(last, 'signaling').status).toBe('passed');
    expect(step(last, 'frame')).toMatchObject({
      status: 'failed',
      detail:
        'No first frame: The application refused the connection (HTTP 503): This session has its 8 viewers already.',
    });
    expect(asked.ended).toEqual([sessionId]);
  });

  it('ends the test session when the page is left while it is pending', async () => {
    const asked = checkService({ pendingPolls: Infinity });
    const left = new AbortController();
    const reports: StepReport[][] = [];
    const run = runCheck(deps(), (steps) => reports.push(steps), left.signal);
    run.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(asked.launched).toHaveLength(1);
    expect(step(reports.at(-1)!, 'signaling').detail).toBe(
      `Test session ${sessionId}: Waiting for a free GPU: 1 session ahead`,
    );
    left.abort();
    await expect(run).rejects.toThrow();
    expect(asked.ended).toEqual([sessionId]);
  });
});
