/**
 * What the encoder's ffmpeg is told (encoder.ts runs it): raw frames on its stdin, the chosen video encoder
 * (VP8, or H.264 on the CPU or an NVIDIA GPU) at a rate that grows with the picture, RTP to a loopback UDP port.
 * Also which encoder a codec gets on this machine (`chooseEncoder`). (The still is the application's: still.ts.)
 */
import { givenH264Encoder, probeH264, type H264Choice } from '../../protocol/h264-encoder.ts';
import type { Codec } from '../../protocol/launch.ts';

/** Size and rate of the encoded stream. */
export interface EncoderSize {
  width: number;
  height: number;
  fps: number;
}

/** ffmpeg's names for the pixel layouts of the frames it reads. */
export type PixelFormat = 'rgba' | 'bgr0';

/** Where ffmpeg's frames come from: 32-bit pixels on its stdin, whenever the application has one. */
function inputArgs(size: EncoderSize, pixelFormat: PixelFormat): string[] {
  const { width, height } = size;
  // Frames come when the application draws them, which is sooner than the schedule when input arrives, so each
  // is stamped with the clock as ffmpeg reads it. The demuxer's time base is 1 / framerate: 1 ms here, since at
  // 1 / fps two frames drawn within one interval would get the same timestamp.
  return [
    // The layout is given, so nothing needs probing: by default ffmpeg reads 5 MB of frames before it encodes
    // the first (about 100 ms of a start or a resize at 640x360; measured 190 -> 95 ms to the first packet).
    ...['-probesize', '32', '-analyzeduration', '0'],
    ...['-f', 'rawvideo', '-pix_fmt', pixelFormat, '-s', `${width}x${height}`],
    ...['-use_wallclock_as_timestamps', '1', '-framerate', '1000', '-i', 'pipe:0'],
  ];
}

/**
 * The frames' conversion to what the encoders take, YUV 4:2:0 (swscale). The flags take swscale's path that
 * box-filters the chroma: measured at 960x540, half the CPU of its default (bicubic) path, which was a third of
 * the encoder's CPU on a scrolling terminal. The luma of both is bit-identical; their chroma differs by about
 * one level in 255 (47 dB PSNR on ffmpeg's colour test pattern).
 */
export const TO_YUV = ['-sws_flags', 'area+full_chroma_inp', '-pix_fmt', 'yuv420p'];

/** The encoder's target bitrate in kbit/s: it grows with area and rate, ~1.2 Mbit/s at 720p30. */
export function targetKbps({ width, height, fps }: EncoderSize): number {
  return Math.max(300, Math.round((width * height * fps) / 23_000));
}

/**
 * The bytes a second a stream of `size` may take: twice the encoder's maxrate (2.7 Mbit/s at 960x540 30 fps).
 * libvpx does not hold its rate when every frame is a screen of new text (a terminal scrolling), so an
 * application whose frames come as its picture changes paces them by this (display/capture.ts).
 */
export function bandwidthOf(size: EncoderSize): number {
  return (targetKbps(size) * 4 * 1000) / 8;
}

/** The ffmpeg encoders this application drives: libvpx for VP8; x264 (software) or NVENC (NVIDIA GPU) for H.264. */
export type VideoEncoderName = 'libvpx' | 'libx264' | 'h264_nvenc';

/**
 * The keyframe interval in frames: one second. It bounds what a new viewer needs replayed first, and how long a lost
 * packet spoils the picture (no retransmission here). Every half second, as before, a keyframe took so much of the
 * rate that the picture between them was blocky: `top` redrawing a 1280x720 terminal averaged 29.3 dB (PSNR against
 * the screen) at 1.34 Mbit/s in VP8, and 34.5 dB at 1.49 Mbit/s with one a second; in H.264, 33.9 dB at 1.68
 * Mbit/s against 36.3 dB at 1.29 Mbit/s. (Eight seconds of `top -d 0.5` in an xterm, grabbed from Xvfb and encoded
 * with these arguments; two seconds gave VP8 35.8 dB, but twice as long a spoiled picture after a loss.)
 */
function gop(fps: number): string {
  return String(Math.max(1, Math.round(fps)));
}

/** The encoder's own arguments, after the input; every one holds the same rate settings. */
export function videoArgs(encoder: VideoEncoderName, size: EncoderSize): string[] {
  const kbps = targetKbps(size);
  const keyframes = ['-g', gop(size.fps), '-keyint_min', gop(size.fps)];
  const rate = ['-b:v', `${kbps}k`, '-maxrate', `${kbps * 2}k`, '-bufsize', `${kbps}k`];
  switch (encoder) {
    case 'libvpx':
      return [
        ...['-c:v', 'libvpx'],
        // No look-ahead, no alt-ref: each frame leaves as soon as it is encoded.
        ...['-deadline', 'realtime', '-cpu-used', '16', '-lag-in-frames', '0', '-auto-alt-ref', '0'],
        // One thread: measured at half the CPU of two on a busy 2-core machine; a frame still takes only ~6 ms.
        // static-thresh: a 16x16 block within this of what the viewer already has (the sum of its pixels' squared
        // differences) is skipped, which is most of this picture and saves CPU. At 1000 a block a level or so off
        // was never mended: text replaced in a terminal left faint rectangles of another grey on its background,
        // and F3D's background kept blocks after a rotation, until the next keyframe, 30 frames away (30 s of a
        // still picture, sent once a second). At 100, under one level over a block (256), they are mended in the
        // frames that follow. Measured by bench/encoding.ts (1280x720, frames sent as the display host sends
        // them; three runs): the picture that stays, from a second after the last change, went from 43.8-44.2 to
        // 50.4-50.7 dB (PSNR) in the terminal and from 46.9 to 49.6 dB in F3D; the average from 43.2-44.0 to
        // 48.0-48.6 and from 44.3 to 45.5 dB; the stream 11-14% larger in the terminal (0.30-0.41 Mbit/s), 2% in
        // F3D (0.51); the encoder's CPU from 2.9-3.3 to 3.3-3.5 ms a frame sent (about 0.1 of a core while F3D
        // turns at 30 fps). At 300 the terminal kept its rectangles (44.5 dB); at 0, no better than 100, a frame
        // took 4.2 to 5.2 ms. Without -error-resilient (a picture that mends after a lost packet) the stream was
        // up to 12% smaller, for no better picture; without -undershoot-pct, or with a -qmax of 48, the same.
        ...['-error-resilient', '1', '-threads', '1', '-static-thresh', '100'],
        ...keyframes,
        ...rate,
        ...['-undershoot-pct', '95'],
      ];
    case 'libx264':
      return [
        ...['-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency'],
        // Constrained baseline (what browsers offer as 42e01f): no B-frames, nothing held back.
        ...['-profile:v', 'baseline', '-threads', '1'],
        // SPS and PPS before every IDR, so a viewer whose replay starts at one can decode it. fps: the nominal rate,
        // since the input's time base says 1000 fps; with it x264 chose level 6.0 and starved a 720p terminal to
        // 0.07 Mbit/s of mush (its rate control still paces by the real timestamps).
        ...['-x264-params', `repeat-headers=1:scenecut=0:fps=${size.fps}`],
        ...keyframes,
        ...rate,
      ];
    case 'h264_nvenc':
      return [
        ...['-c:v', 'h264_nvenc', '-preset', 'p1', '-tune', 'ull', '-zerolatency', '1', '-delay', '0'],
        ...['-profile:v', 'baseline', '-rc', 'cbr', '-forced-idr', '1'],
        ...keyframes,
        ...rate,
      ];
  }
}

/** Arguments for ffmpeg: a realtime encoder (libvpx unless told), for low latency and low CPU over quality. */
export function ffmpegArgs(
  size: EncoderSize,
  rtpPort: number,
  pixelFormat: PixelFormat = 'rgba',
  encoder: VideoEncoderName = 'libvpx',
): string[] {
  return [
    ...['-hide_banner', '-loglevel', 'error', '-nostats'],
    ...inputArgs(size, pixelFormat),
    '-an',
    ...TO_YUV,
    // Timestamps as they came, neither frames duplicated nor dropped to fit a rate (the application keeps its own).
    ...['-fps_mode', 'passthrough'],
    ...videoArgs(encoder, size),
    ...['-f', 'rtp', '-payload_type', '96'],
    // RTCP goes to the same socket, where it is dropped: a closed RTCP port would make ffmpeg's sends fail.
    `rtp://127.0.0.1:${rtpPort}?pkt_size=1200&rtcpport=${rtpPort}`,
  ];
}

/**
 * The encoder for `codec`, and a sentence saying why, for the log. For H.264: the one the service named in
 * the environment (it probes the machine once for all its sessions), else what this machine's probes find.
 */
export async function chooseEncoder(
  codec: Codec,
  env: NodeJS.ProcessEnv = process.env,
  probe: () => Promise<H264Choice> = () => probeH264(),
): Promise<{ encoder: VideoEncoderName; reason: string }> {
  if (codec === 'vp8') return { encoder: 'libvpx', reason: 'VP8 in software (libvpx)' };
  const given = givenH264Encoder(env);
  if (given) return { encoder: given, reason: `H.264 with ${given}, as the service found this machine` };
  return probe();
}
