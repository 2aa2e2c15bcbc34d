/**
 * The video pipeline (video-pipeline.ts) with a stand-in encoder: it ends the stream only when the encoder dies
 * before its first packet, applies a viewer's resizes at most once a second (on fake time), and stops what it
 * started with its scope.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseLaunch } from '../../protocol/launch.ts';
import type { Encoder, EncoderOptions } from './encoder.ts';
import { Scope } from '../runtime/scope.ts';
import type { StreamSize } from '../runtime/stream-options.ts';
import { VideoPipeline, type StartEncoder } from './video-pipeline.ts';

const options = parseLaunch(['--signaling-port', '49999', '--media-port', '49998'], {});

/** A stand-in encoder: what it was told, and its options, through which the test plays ffmpeg. */
function standIn() {
  const told: string[] = [];
  let given: Omit<EncoderOptions, 'encoder'> | undefined;
  const start: StartEncoder = async (_options, encoderOptions, size) => {
    given = encoderOptions;
    told.push(`start ${size.width}x${size.height}`);
    return {
      resize: (next: StreamSize) => void told.push(`resize ${next.width}x${next.height}`),
      stop: () => void told.push('stop'),
    } as unknown as Encoder;
  };
  return { start, told, encoder: () => given as Omit<EncoderOptions, 'encoder'> };
}

describe('a video pipeline', () => {
  let scope: Scope;
  const lines: string[] = [];
  beforeEach(() => {
    scope = new Scope();
    lines.length = 0;
  });
  afterEach(async () => {
    vi.useRealTimers();
    await scope.dispose();
  });

  it('fails when its encoder dies before its first packet, and restarts one that dies later', async () => {
    const { start, encoder } = standIn();
    const video = new VideoPipeline(scope, options, (line) => lines.push(line));
    const failures: string[] = [];
    video.on('failed', (reason) => failures.push(reason));
    await video.start(start);
    encoder().onUnexpectedExit?.('ffmpeg exited (1)');
    expect(failures).toEqual(['the video encoder failed before its first frame: ffmpeg exited (1)']);

    const packets: Buffer[] = [];
    video.on('packet', (packet) => packets.push(packet));
    // The start of a VP8 keyframe (an RTP header, a descriptor with S set, a keyframe's first byte): sent.
    const packet = Buffer.from([0x80, 96, 0, 1, 0, 0, 0, 1, 0, 0, 0, 7, 0x10, 0x00]);
    encoder().onPacket(packet);
    expect(packets).toEqual([packet]);
    encoder().onUnexpectedExit?.('ffmpeg exited (1)');
    expect(failures).toHaveLength(1);
    expect(lines).toEqual(['ffmpeg exited (1); restarting it']);
  });

  it('applies the first resize at once and only the last of those within the second after it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { start, told } = standIn();
    const video = new VideoPipeline(scope, options, () => undefined);
    const sizes: StreamSize[] = [];
    video.on('resized', (size) => sizes.push(size));
    await video.start(start);
    video.resize(640, 360);
    video.resize(800, 600);
    video.resize(1024, 768);
    expect(told).toEqual(['start 1280x720', 'resize 640x360']);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(told).toEqual(['start 1280x720', 'resize 640x360', 'resize 1024x768']);
    expect(sizes.map((s) => `${s.width}x${s.height}`)).toEqual(['640x360', '1024x768']);
    expect(video.size).toMatchObject({ width: 1024, height: 768 });
  });

  it('stops its encoder with its scope, and forgets a resize that waits', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { start, told } = standIn();
    const video = new VideoPipeline(scope, options, () => undefined);
    await video.start(start);
    video.resize(640, 360);
    video.resize(800, 600);
    await scope.dispose();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(told).toEqual(['start 1280x720', 'resize 640x360', 'stop']);
  });
});
