import { afterEach, describe, expect, it } from 'vitest';
import { freeUdpPort } from '../../test-support/ports.ts';
import { parseArgs } from '../transport/args.ts';
import { startStreamer, type Streamer } from './app.ts';

describe('an application whose encoder cannot run', () => {
  let streamer: Streamer | undefined;
  afterEach(async () => {
    await streamer?.close();
    delete process.env.STREAMGATE_FFMPEG;
  });

  it('gives up with the reason, since it says it is ready before its first frame', async () => {
    // An "ffmpeg" that fails at once, as one without the codec does.
    process.env.STREAMGATE_FFMPEG = 'false';
    const options = parseArgs(['--signaling-port', '1', '--media-port', String(await freeUdpPort())]);
    streamer = await startStreamer({ ...options, signalingPort: 0 });
    const end = await streamer.done;
    expect(end.code).toBe(1);
    expect(end.reason).toMatch(/^the video encoder failed before its first frame: ffmpeg exited \(1\)/);
    // It answers ready all the same until it exits: ready means it listens (CONTRACT section 11).
    expect(streamer.health()).not.toBeNull();
  });
});
