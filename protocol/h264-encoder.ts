/**
 * Which H.264 encoder this machine has: NVIDIA's (h264_nvenc) where a GPU, its driver and ffmpeg's NVENC
 * are all there, else x264 on the CPU. The service finds out once and tells each H.264 application in its
 * environment (`H264_ENCODER_ENV`), so that a session's start runs no probe: `nvidia-smi -L` alone can
 * take a good part of a second where the driver is not kept loaded. An application started without it
 * (by hand, or by an older service) probes for itself.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';

export type H264Encoder = 'libx264' | 'h264_nvenc';

/** The environment variable through which the service gives an H.264 application the encoder to use. */
export const H264_ENCODER_ENV = 'STREAMGATE_H264_ENCODER';

/** An encoder, and a sentence saying why, for the log. */
export interface H264Choice {
  encoder: H264Encoder;
  reason: string;
}

/** What the choice asks of the machine; each answers false when it cannot tell. */
export interface GpuProbes {
  /** The NVIDIA driver's control device exists (/dev/nvidiactl). */
  hasNvidiaDevice(): boolean;
  /** `nvidia-smi -L` succeeds and lists a GPU. */
  nvidiaSmiListsGpu(): Promise<boolean>;
  /** ffmpeg lists the h264_nvenc encoder (Debian's does even without a GPU, hence the two above). */
  ffmpegHasNvenc(): Promise<boolean>;
}

/** Runs a program and gives its standard output, or null when it fails or takes over 5 s. */
export type RunProgram = (file: string, args: string[]) => Promise<string | null>;

const runProgram: RunProgram = (file, args) =>
  new Promise((resolve) =>
    execFile(file, args, { encoding: 'utf8', timeout: 5000 }, (error, stdout) =>
      resolve(error ? null : stdout),
    ),
  );

/** The probes of this machine; `run` is for tests. */
export function systemProbes(
  ffmpegPath = process.env.STREAMGATE_FFMPEG ?? 'ffmpeg',
  run: RunProgram = runProgram,
): GpuProbes {
  return {
    hasNvidiaDevice: () => existsSync('/dev/nvidiactl'),
    nvidiaSmiListsGpu: async () => /^GPU \d+:/m.test((await run('nvidia-smi', ['-L'])) ?? ''),
    ffmpegHasNvenc: async () =>
      /\sh264_nvenc\s/.test((await run(ffmpegPath, ['-hide_banner', '-encoders'])) ?? ''),
  };
}

/** Asks the probes, only as far as needed, in the order of what is cheapest to ask. */
export async function probeH264(probes: GpuProbes = systemProbes()): Promise<H264Choice> {
  const software = (why: string): H264Choice => ({
    encoder: 'libx264',
    reason: `H.264 in software (libx264): ${why}`,
  });
  if (!probes.hasNvidiaDevice()) return software('no NVIDIA GPU (/dev/nvidiactl is missing)');
  if (!(await probes.nvidiaSmiListsGpu())) return software('nvidia-smi -L lists no usable GPU');
  if (!(await probes.ffmpegHasNvenc())) return software('this ffmpeg has no h264_nvenc encoder');
  return { encoder: 'h264_nvenc', reason: 'H.264 on the NVIDIA GPU (h264_nvenc)' };
}

/** The encoder the service named in `env`, or undefined when it named none (or none that exists). */
export function givenH264Encoder(env: NodeJS.ProcessEnv): H264Encoder | undefined {
  const given = env[H264_ENCODER_ENV]?.trim();
  return given === 'libx264' || given === 'h264_nvenc' ? given : undefined;
}
