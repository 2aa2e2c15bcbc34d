/**
 * A controlling viewer that dies without its goodbye (issue 33): a tab killed, a network gone. No DELETE comes, and
 * its peer connection says nothing more; until the application gives it up, its place is taken, and its owner's
 * next viewer is refused (503). A real service and a real sample application whose profile takes one viewer, so the
 * place the dead viewer holds is the one the next needs.
 *
 * The viewer is a child process (node-datachannel) that sends keep-alives as the portal's player does, killed with
 * SIGKILL: no DELETE, no SCTP abort, no DTLS close, its packets simply stop. Its place must be free within 5 s of
 * that (streamer/transport/viewer-liveness.ts); paused for two seconds (SIGSTOP, as a network that drops everything
 * for that long), it must keep it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { figure } from './support/profile.ts';
import { root, until, type Service } from './support/service.ts';
import { viewerTicket } from './support/session.ts';
import { useSuiteService } from './support/suite-service.ts';
import { makeOffer, openViewer } from './support/whep-viewer.ts';
import { sampleCatalog } from '../e2e/support/catalogs.ts';

/** What the place may take to be free after the viewer's end, and the slack of a loaded two-core machine. */
const FREE_WITHIN_MS = 5_000;
const MARGIN_MS = 500;
const CATALOG = sampleCatalog(
  { width: 320, height: 180, fps: 15 },
  {
    id: 'one',
    description: '320x180 at 15 fps, one viewer.',
    settings: 'max_viewers: 1, startup_timeout_s: 90',
  },
);

/** The viewer, run with `node --import tsx`: the portal's player's keep-alives, and a line once video arrives. */
const moduleUrl = (file: string) => JSON.stringify(pathToFileURL(path.join(root, file)).href);
const VIEWER = `
import { openViewer } from ${moduleUrl('test-support/whep-viewer.ts')};
import { KEEP_ALIVE_EVERY_MS, KEEP_ALIVE_MESSAGE } from ${moduleUrl('protocol/data-channels.ts')};
const [signaling, ticket] = process.argv.slice(1);
const viewer = await openViewer(signaling, 20_000, ticket);
const keepAlive = () => viewer.messages.sendMessage(KEEP_ALIVE_MESSAGE);
keepAlive();
setInterval(keepAlive, KEEP_ALIVE_EVERY_MS);
const watching = setInterval(() => {
  if (viewer.videoPackets() === 0) return;
  clearInterval(watching);
  console.log('playing');
}, 50);
`;

const suite = useSuiteService({
  port: 18295,
  sessionPorts: { first: 25960, last: 25969 },
  catalog: CATALOG,
  env: { STREAMGATE_RATE_LIMIT: 'off' },
});

let sessionId = '';
let viewer: ChildProcess | undefined;

// Before the suite's own clean-up, which was registered first (after-hooks run newest first).
afterAll(() => {
  viewer?.kill('SIGKILL');
});

async function ticket(s: Service): Promise<string> {
  return (await viewerTicket(s.api, sessionId, { scope: 'control' })).ticket;
}

/** POST /whep as the owner's next viewer; an admitted one is deleted at once. Resolves with the status. */
async function nextViewer(signaling: string, token: string): Promise<number> {
  const { sdp, pc } = await makeOffer();
  try {
    const auth = { authorization: `Bearer ${token}` };
    const res = await fetch(`${signaling}/whep`, {
      method: 'POST',
      headers: { 'content-type': 'application/sdp', ...auth },
      body: sdp,
    });
    await res.text();
    const location = res.headers.get('location');
    if (res.status === 201 && location)
      await fetch(new URL(location, signaling), { method: 'DELETE', headers: auth });
    return res.status;
  } finally {
    pc.close();
  }
}

describe('a controlling viewer killed without its DELETE', () => {
  it(`frees its place within ${FREE_WITHIN_MS / 1000} s, and keeps it through two seconds of silence`, async () => {
    const s = await suite.start();
    const session = await suite.session('sample', 'one', 90_000);
    sessionId = session.id;
    const { signaling } = session;

    const child = (viewer = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', VIEWER, signaling, await ticket(s)],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    ));
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await until('the viewer to play', () => output.includes('playing') || child.exitCode !== null, 30_000);
    expect(output).toContain('playing');
    // One viewer at most: while it is there, the owner's next one is refused.
    const next = await ticket(s);
    expect(await nextViewer(signaling, next)).toBe(503);

    // Two seconds without a packet either way, then it goes on: it keeps its place past the keep-alive timeout.
    child.kill('SIGSTOP');
    await sleep(2_000);
    child.kill('SIGCONT');
    await sleep(3_000);
    expect(await nextViewer(signaling, next)).toBe(503);

    child.kill('SIGKILL');
    const killed = performance.now();
    // A refused offer gives its control ticket back: the same one is tried until it is taken.
    await until('the place to be free', async () => (await nextViewer(signaling, next)) === 201, 30_000, 100);
    const freedMs = Math.round(performance.now() - killed);
    figure('control place free after its viewer was killed (SIGKILL, no DELETE)', freedMs, 'ms');
    expect(freedMs).toBeLessThan(FREE_WITHIN_MS + MARGIN_MS);

    // The owner's next viewer plays.
    const again = await openViewer(signaling, 20_000, await ticket(s));
    await until('video to reach the next viewer', () => again.videoPackets() > 0, 20_000);
    await again.close();
  });
});
