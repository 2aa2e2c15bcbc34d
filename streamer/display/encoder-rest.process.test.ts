/**
 * A display host's encoder at rest, with everything real (Xvfb, xterm, ffmpeg, the stream server, a WHEP viewer):
 * nobody watching for the time asked (`--encoder-rest-s`), its ffmpeg ends; the next viewer wakes it and gets
 * the picture, though nothing on the display changed meanwhile.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, freeUdpPort } from '../../test-support/ports.ts';
import { launchStreamer, type StreamerProcess } from '../../test-support/streamer-process.ts';
import { until } from '../../test-support/until.ts';
import { openViewer } from '../../test-support/whep-viewer.ts';

/** What `path` holds, or '' when it is gone (a thread of the host that ended while the test looked). */
function readGone(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** The ffmpeg children of `pid`, from each of its threads' list of children. */
function encoders(pid: number): number[] {
  const children = readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readGone(`/proc/${pid}/task/${task}/children`).trim().split(/\s+/).filter(Boolean).map(Number),
  );
  return children.filter((child) => readGone(`/proc/${child}/comm`).trim() === 'ffmpeg');
}

let host: StreamerProcess | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

describe('an unwatched display host', () => {
  it('rests its encoder once nobody watches, and wakes it for the next viewer, who gets the picture', async () => {
    host = await launchStreamer({
      signalingPort: await freePort(),
      mediaPort: await freeUdpPort(),
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
});
