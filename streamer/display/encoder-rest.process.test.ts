/**
 * A display host's encoder at rest, with everything real (Xvfb, xterm, ffmpeg, the stream server, a WHEP viewer):
 * nobody watching for the time asked (`--encoder-rest-s`), its ffmpeg ends; the next viewer wakes it and gets
 * the picture, though nothing on the display changed meanwhile.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { childrenOf } from '../../test-support/processes.ts';
import { launchStreamer, type StreamerProcess } from '../../test-support/streamer-process.ts';
import { until } from '../../test-support/until.ts';
import { openViewer } from '../../test-support/whep-viewer.ts';

/** The ffmpeg children of `pid`. */
function encoders(pid: number): number[] {
  return childrenOf(pid).filter((child) => {
    try {
      return readFileSync(`/proc/${child}/comm`, 'utf8').trim() === 'ffmpeg';
    } catch {
      return false; // gone meanwhile
    }
  });
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
});
