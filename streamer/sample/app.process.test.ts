import { afterEach, describe, expect, it } from 'vitest';
import { freeUdpPort } from '../../test-support/ports.ts';
import { startStreamer, type Streamer } from './app.ts';
import { parseLaunch } from '../../protocol/launch.ts';

describe('an application whose encoder cannot run', () => {
  let streamer: Streamer | undefined;
  afterEach(async () => {
    await streamer?.close();
    delete process.env.STREAMGATE_FFMPEG;
  });

  it('gives up with the reason, since it says it is ready before its first frame', async () => {
    // An "ffmpeg" that fails at once, as one without the codec does.
    process.env.STREAMGATE_FFMPEG = 'false';
    const options = parseLaunch(['--signaling-port', '1', '--media-port', String(await freeUdpPort())]);
    let onFatal: (reason: string) => void = () => undefined;
    const fatal = new Promise<string>((resolve) => (onFatal = resolve));
    streamer = await startStreamer({ ...options, signalingPort: 0 }, { onFatal });
    expect(await fatal).toMatch(/^the video encoder failed before its first frame: ffmpeg exited \(1\)/);
    // It answers ready all the same until it exits: ready means it listens (CONTRACT section 11).
    expect(streamer.health()).not.toBeNull();
  });
});
