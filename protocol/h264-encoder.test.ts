/** The H.264 encoder a machine has: asked as far as needed, the cheapest question first. */
import { describe, expect, it } from 'vitest';
import {
  givenH264Encoder,
  H264_ENCODER_ENV,
  probeH264,
  systemProbes,
  type GpuProbes,
} from './h264-encoder.ts';

/** Probes that answer as told and record which were asked. */
function probes(gpu: boolean, smi: boolean, nvenc: boolean) {
  const asked: string[] = [];
  const p: GpuProbes = {
    hasNvidiaDevice: () => (asked.push('device'), gpu),
    nvidiaSmiListsGpu: async () => (asked.push('nvidia-smi'), smi),
    ffmpegHasNvenc: async () => (asked.push('ffmpeg'), nvenc),
  };
  return { p, asked };
}

describe('the H.264 encoder of a machine', () => {
  it('is NVENC where the GPU, its driver and ffmpeg all have it', async () => {
    expect(await probeH264(probes(true, true, true).p)).toEqual({
      encoder: 'h264_nvenc',
      reason: 'H.264 on the NVIDIA GPU (h264_nvenc)',
    });
  });

  it.each([
    ['no NVIDIA device', [false, true, true], /\/dev\/nvidiactl is missing/, ['device']],
    [
      'a driver that lists no GPU',
      [true, false, true],
      /nvidia-smi -L lists no usable GPU/,
      ['device', 'nvidia-smi'],
    ],
    ['an ffmpeg without NVENC', [true, true, false], /no h264_nvenc/, ['device', 'nvidia-smi', 'ffmpeg']],
  ] as const)('is x264 with %s, and says why', async (_name, [gpu, smi, nvenc], reason, asked) => {
    const probe = probes(gpu, smi, nvenc);
    const choice = await probeH264(probe.p);
    expect(choice.encoder).toBe('libx264');
    expect(choice.reason).toMatch(/^H\.264 in software \(libx264\): /);
    expect(choice.reason).toMatch(reason);
    expect(probe.asked).toEqual(asked);
  });

  it("reads nvidia-smi's list and ffmpeg's encoders, and takes a failed program for no", async () => {
    const ran: string[] = [];
    const answers: Record<string, string | null> = {
      'nvidia-smi -L': 'GPU 0: NVIDIA L4 (UUID: GPU-1)\n',
      '/opt/ffmpeg -hide_banner -encoders': ' V....D h264_nvenc  NVIDIA NVENC H.264 encoder\n',
    };
    const run = async (file: string, args: string[]) => {
      const line = [file, ...args].join(' ');
      ran.push(line);
      return answers[line] ?? null;
    };
    const machine = systemProbes('/opt/ffmpeg', run);
    expect(await machine.nvidiaSmiListsGpu()).toBe(true);
    expect(await machine.ffmpegHasNvenc()).toBe(true);
    expect(ran).toEqual(['nvidia-smi -L', '/opt/ffmpeg -hide_banner -encoders']);
    // No GPU listed, an ffmpeg that failed or lists only x264: no.
    answers['nvidia-smi -L'] = 'No devices were found\n';
    expect(await machine.nvidiaSmiListsGpu()).toBe(false);
    expect(await systemProbes('/usr/bin/ffmpeg', run).ffmpegHasNvenc()).toBe(false);
    answers['/opt/ffmpeg -hide_banner -encoders'] = ' V....D libx264  libx264 H.264\n';
    expect(await machine.ffmpegHasNvenc()).toBe(false);
  });

  it('is the one the service named, when it is one that exists', () => {
    expect(givenH264Encoder({ [H264_ENCODER_ENV]: 'h264_nvenc' })).toBe('h264_nvenc');
    expect(givenH264Encoder({ [H264_ENCODER_ENV]: ' libx264\n' })).toBe('libx264');
    expect(givenH264Encoder({ [H264_ENCODER_ENV]: 'libvpx' })).toBeUndefined();
    expect(givenH264Encoder({})).toBeUndefined();
  });
});
