/**
 * The video pipeline (video-pipeline.ts) with a stand-in encoder: it ends the stream only when the encoder dies
 * before its first packet, applies a viewer's resizes at most once a second (on fake time), and stops what it
 * started with its scope.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
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
    let resting = false;
    return {
      resize: (next: StreamSize) => void told.push(`resize ${next.width}x${next.height}`),
      stop: () => void told.push('stop'),
      rest: () => void ((resting = true), told.push('rest')),
      wake: () => void ((resting = false), told.push('wake')),
      acquire: () => (resting ? null : Buffer.alloc(8)),
      write: () => void told.push('write'),
      get isResting() {
        return resting;
      },
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

  it('rests its encoder once nobody watched for the time asked, from its start on, and wakes it for the next viewer', async () => {
    vi.useFakeTimers();
    const { start, told } = standIn();
    const video = new VideoPipeline(scope, options, (line) => lines.push(line), 'bgr0', 20_000);
    let woke = 0;
    video.on('woke', () => woke++);
    await video.start(start);
    video.watchPicture();
    // Launched, and nobody opened it.
    await vi.advanceTimersByTimeAsync(19_999);
    expect(told).toEqual(['start 1280x720']);
    await vi.advanceTimersByTimeAsync(1);
    expect(told.at(-1)).toBe('rest');
    expect(lines.at(-1)).toBe('nobody watched for 20 s: the encoder rests until a viewer comes');
    // At rest the picture watch expects nothing: no stall however long.
    let stalled = false;
    video.on('stalled', () => (stalled = true));
    await vi.advanceTimersByTimeAsync(120_000);
    expect(stalled).toBe(false);

    video.watched(1);
    expect(told.at(-1)).toBe('wake');
    expect(woke).toBe(1);
    // A second viewer, and the first leaving, change nothing; the last leaving starts the count again.
    video.watched(2);
    video.watched(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(told.filter((each) => each === 'rest')).toHaveLength(1);
    video.watched(0);
    await vi.advanceTimersByTimeAsync(10_000);
    video.watched(1);
    video.watched(0);
    await vi.advanceTimersByTimeAsync(19_999);
    expect(told.filter((each) => each === 'rest')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(told.filter((each) => each === 'rest')).toHaveLength(2);
    expect(woke).toBe(1);
  });

  it('never rests its encoder when not asked to (the sample application)', async () => {
    vi.useFakeTimers();
    const { start, told } = standIn();
    const video = new VideoPipeline(scope, options, (line) => lines.push(line));
    await video.start(start);
    video.watched(0);
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(told).toEqual(['start 1280x720']);
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

  it('keeps the still going while its encoder rests: a picture asked for every few seconds, into a buffer of its own', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const dir = await mkdtemp(path.join(tmpdir(), 'streamgate-pipeline-still-'));
    scope.defer(() => rm(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'still.png');
    const { start, told } = standIn();
    const small = { ...options, width: 64, height: 36, stillPath: file };
    const video = new VideoPipeline(scope, small, (line) => lines.push(line), 'bgr0', 1_000);
    let asked = 0;
    video.on('stillDue', () => asked++);
    await video.start(start);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(told.at(-1)).toBe('rest');
    await vi.advanceTimersByTimeAsync(3_000);
    expect(asked).toBe(1);

    // At rest, the frame asked for goes to the still alone.
    const frame = video.acquire();
    expect(frame).toHaveLength(64 * 36 * 4);
    video.send(frame!.fill(200));
    await vi.waitFor(() => expect(existsSync(file)).toBe(true));
    expect(told.filter((t) => t === 'write')).toEqual([]);
    expect(video.acquire()).toBeNull();

    // Awake, frames go to the encoder again and nothing more is asked for the still.
    video.watched(1);
    expect(told.at(-1)).toBe('wake');
    video.send(video.acquire()!);
    expect(told.at(-1)).toBe('write');
    await vi.advanceTimersByTimeAsync(9_000);
    expect(asked).toBe(1);
  });
});
