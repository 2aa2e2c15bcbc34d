/** What a page's <video> sounds like, heard through a Web Audio analyser on its stream. */
import type { Page } from '@playwright/test';

/** The strongest frequency of the video element's sound over about half a second, and how loud it is (dB). */
export async function dominant(page: Page): Promise<{ hz: number; db: number; tracks: string[] }> {
  return page.evaluate(async () => {
    const video = document.querySelector('video');
    const stream = video?.srcObject as MediaStream | null;
    const tracks = stream?.getTracks().map((t) => t.kind) ?? [];
    if (!stream || stream.getAudioTracks().length === 0) return { hz: 0, db: -Infinity, tracks };
    const context = new AudioContext();
    await context.resume();
    const analyser = context.createAnalyser();
    analyser.fftSize = 8192;
    context.createMediaStreamSource(stream).connect(analyser);
    const bins = new Float32Array(analyser.frequencyBinCount);
    const sum = new Float32Array(analyser.frequencyBinCount);
    for (let i = 0; i < 10; i++) {
      await new Promise((resolve) => setTimeout(resolve, 60));
      analyser.getFloatFrequencyData(bins);
      for (let b = 0; b < bins.length; b++) sum[b]! += Math.max(bins[b]!, -200) / 10;
    }
    let best = 1;
    for (let b = 2; b < sum.length; b++) if (sum[b]! > sum[best]!) best = b;
    const hz = (best * context.sampleRate) / analyser.fftSize;
    await context.close();
    return { hz, db: sum[best]!, tracks };
  });
}
