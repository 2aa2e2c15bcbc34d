/**
 * A display host's encoder at rest, with everything real (Xvfb, xterm, ffmpeg, the stream server, a WHEP viewer):
 * nobody watching for the time asked (`--encoder-rest-s`), its ffmpeg ends; the next viewer wakes it and gets
 * the picture, though nothing on the display changed meanwhile.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { childrenOf, descendantsOf } from '../../test-support/processes.ts';
import { launchStreamer, type StreamerProcess } from '../../test-support/streamer-process.ts';
import { until } from '../../test-support/until.ts';
import { makeOffer, openViewer } from '../../test-support/whep-viewer.ts';
import { signTicket } from '../../protocol/viewer-ticket.ts';

/** A process's command name, or null once it is gone. */
function commandOf(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return null; // gone meanwhile
  }
}

/** The ffmpeg children of `pid`. */
function encoders(pid: number): number[] {
  return childrenOf(pid).filter((child) => commandOf(child) === 'ffmpeg');
}

let host: StreamerProcess | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

describe('an unwatched display host', () => {
  it('rests its encoder once nobody watches, and wakes it for the next viewer, who gets the picture', async () => {
    host = await launchStreamer({
      args: ['--width', '320', '--height', '200', '--no-audio', '--encoder-rest-s', '1'],
      readyWithinMs: 60_000,
      testMarks: false,
      program: ['xterm'],
    });
    const pid = host.process.pid ?? 0;
    const first = await openViewer(host.url);
    await until(
      'video for the first viewer',
      () => (first.videoPackets() > 0 ? true : undefined),
      20_000,
      50,
    );
    expect(encoders(pid)).toHaveLength(1);
    await first.close();

    await until('the encoder to rest', () => (encoders(pid).length === 0 ? true : undefined), 10_000, 100);
    expect(host.output()).toContain('nobody watched for 1 s: the encoder rests until a viewer comes');

    const next = await openViewer(host.url);
    // The xterm draws nothing new: the picture comes because the encoder woke and was given it whole.
    await until('video for the next viewer', () => (next.videoPackets() > 0 ? true : undefined), 20_000, 50);
    expect(encoders(pid)).toHaveLength(1);
    expect(host.output()).toContain('a viewer came: the encoder woke');
    await next.close();
  });

  it('stays at rest for WHEP offers it refuses: no ticket, a forged one, one of another session', async () => {
    const session = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
    const secret = Buffer.alloc(32, 7);
    // The host reads its secret file at start, after this test's turn: a file of the test's own, removed at its end.
    const dir = mkdtempSync(path.join(tmpdir(), 'streamgate-rest-secret-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const secretPath = path.join(dir, 'secret');
    writeFileSync(secretPath, secret.toString('base64url'), { mode: 0o600 });
    host = await launchStreamer({
      args: ['--width', '320', '--height', '200', '--no-audio', '--encoder-rest-s', '1'],
      readyWithinMs: 60_000,
      testMarks: false,
      program: ['xterm'],
      env: {
        STREAMGATE_SESSION_ID: session,
        STREAMGATE_VIEWER_SECRET_FILE: secretPath,
      },
    });
    const pid = host.process.pid ?? 0;
    await until('the encoder to rest', () => (encoders(pid).length === 0 ? true : undefined), 10_000, 100);
    await until(
      'the rest to be logged',
      () => (host?.output().includes('the encoder rests until a viewer comes') ? true : undefined),
      5_000,
      50,
    );

    const sign = async (key: Buffer, id: string) =>
      (await signTicket(new Uint8Array(key), id, 'control', 60)).ticket;
    const refused: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${await sign(Buffer.alloc(32, 8), session)}` },
      { authorization: `Bearer ${await sign(secret, '11111111-2222-4333-8444-555555555555')}` },
    ];
    for (const headers of refused) {
      const { sdp, pc } = await makeOffer();
      const res = await fetch(`${host.url}/whep`, {
        method: 'POST',
        headers: { 'content-type': 'application/sdp', ...headers },
        body: sdp,
      });
      pc.close();
      expect(res.status).toBe(401);
    }
    // A woken encoder is an ffmpeg child within a few milliseconds (the first test's wake); give it ample time.
    const deadline = Date.now() + 1_500;
    while (Date.now() < deadline) {
      expect(encoders(pid)).toHaveLength(0);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(host.output()).not.toContain('a viewer came: the encoder woke');

    // The owner's ticket does wake it.
    const owner = await openViewer(host.url, 20_000, await sign(secret, session));
    await until('video for the owner', () => (owner.videoPackets() > 0 ? true : undefined), 20_000, 50);
    expect(host.output()).toContain('a viewer came: the encoder woke');
    await owner.close();
  });

  it('keeps its still up to date at rest: a program that turns its screen dark meanwhile shows dark', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'streamgate-rest-still-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const still = path.join(dir, 'still.png');
    host = await launchStreamer({
      args: ['--width', '320', '--height', '200', '--no-audio', '--encoder-rest-s', '1'],
      readyWithinMs: 60_000,
      testMarks: false,
      // White until the test sends SIGUSR1 to the shell: then reverse video (DECSCNM) turns the whole window black.
      program: ['xterm', '-e', 'sh', '-c', `trap "printf '\\033[?5h'" USR1; while :; do sleep 0.1; done`],
      env: { STREAMGATE_STILL_PATH: still },
    });
    const pid = host.process.pid ?? 0;
    const brightness = () => {
      try {
        const { data } = PNG.sync.read(readFileSync(still));
        let sum = 0;
        for (let i = 0; i < data.length; i += 4) sum += data[i]! + data[i + 1]! + data[i + 2]!;
        return sum / (data.length / 4) / 3;
      } catch {
        return null; // not written yet
      }
    };
    await until('a light still', () => ((brightness() ?? 0) > 200 ? true : undefined), 30_000, 100);
    await until('the encoder to rest', () => (encoders(pid).length === 0 ? true : undefined), 10_000, 100);
    // At rest, with nothing changing, a still is still made every few seconds (the rest's own asking).
    const restedAt = statSync(still).mtimeMs;
    await until(
      'a still made at rest',
      () => (statSync(still).mtimeMs > restedAt ? true : undefined),
      10_000,
      50,
    );
    // Just after one: the change comes when no still is due, and only the next asking shows it.
    const shell = descendantsOf(pid).find((child) => commandOf(child) === 'sh');
    expect(shell).toBeDefined();
    process.kill(shell!, 'SIGUSR1');
    await until('a dark still', () => ((brightness() ?? 255) < 60 ? true : undefined), 15_000, 200);
    // Made by the host alone: the encoder stayed at rest.
    expect(encoders(pid)).toHaveLength(0);
    expect(host.output()).not.toContain('a viewer came: the encoder woke');
  });
});
