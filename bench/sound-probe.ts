/**
 * What bench/sound.ts puts into the viewer's page: a hold on every peer connection (for getStats) and the probe that
 * finds each onset of sound in the stream and stamps keys and presses.
 */
import type { Browser, Page } from 'playwright-core';
import type { Stack } from '../e2e/support/stack';

export const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Keeps every RTCPeerConnection the page makes, for getStats(). */
export const keepConnections = `
window.__name = (f) => f;
window.benchPcs = [];
const Native = window.RTCPeerConnection;
window.RTCPeerConnection = function (...args) { const pc = new Native(...args); window.benchPcs.push(pc); return pc; };
window.RTCPeerConnection.prototype = Native.prototype;
`;

/**
 * Installed in the page once the stream plays: finds each onset of sound (the first render quantum, or sample,
 * louder than a threshold after at least 100 ms of quiet) and stamps keydowns and pointer presses.
 */
export const probe = `
window.soundProbe = (() => {
  const RMS = 0.02, PEAK = 0.03, QUIET_MS = 100;
  const video = document.querySelector('video');
  const context = new AudioContext({ latencyHint: 'interactive' });
  const source = context.createMediaStreamSource(video.srcObject);
  const sink = context.createGain();
  sink.gain.value = 0;
  sink.connect(context.destination);
  const p = { context, method: '', onsets: [], keys: [], presses: [], loud: false, quietAt: performance.now() };
  // The speaker's time of context time t, in the page's clock.
  const toPage = (t) => { const s = context.getOutputTimestamp(); return s.performanceTime + (t - s.contextTime) * 1000; };
  const onset = (t) => { p.loud = true; p.onsets.push({ seen: performance.now(), at: toPage(t) }); };
  const quiet = () => { p.loud = false; p.quietAt = performance.now(); };
  document.addEventListener('keydown', (e) => { if (!e.repeat) p.keys.push(e.timeStamp); }, { capture: true });
  document.addEventListener('pointerdown', (e) => p.presses.push(e.timeStamp), { capture: true });
  const worklet = \`registerProcessor('onset', class extends AudioWorkletProcessor {
    constructor() { super(); this.loud = false; this.quiet = 0; }
    process(inputs) {
      const ch = inputs[0] && inputs[0][0];
      if (!ch) return true;
      let s = 0;
      for (let i = 0; i < ch.length; i++) s += ch[i] * ch[i];
      if (Math.sqrt(s / ch.length) > \${RMS}) {
        if (!this.loud) {
          let i = 0;
          while (i < ch.length - 1 && Math.abs(ch[i]) < \${PEAK}) i++;
          this.port.postMessage({ onset: currentTime + i / sampleRate });
        }
        this.loud = true;
        this.quiet = 0;
      } else if (this.loud && (this.quiet += ch.length) > sampleRate * \${QUIET_MS} / 1000) {
        this.loud = false;
        this.port.postMessage({ quiet: true });
      }
      return true;
    }
  });\`;
  const analyse = () => {
    // Polled: the analyser holds the last 2048 samples (43 ms), ending about at the context's current time.
    const analyser = context.createAnalyser();
    analyser.fftSize = 2048;
    source.connect(analyser);
    analyser.connect(sink);
    const buf = new Float32Array(analyser.fftSize);
    let quietSince = 0;
    setInterval(() => {
      analyser.getFloatTimeDomainData(buf);
      const end = context.currentTime;
      let s = 0;
      for (let i = buf.length - 256; i < buf.length; i++) s += buf[i] * buf[i];
      const rms = Math.sqrt(s / 256);
      if (!p.loud && rms > RMS) {
        let i = 0;
        while (i < buf.length - 1 && Math.abs(buf[i]) < PEAK) i++;
        onset(end - (buf.length - i) / context.sampleRate);
        quietSince = 0;
      } else if (p.loud && rms < RMS / 2) {
        if (!quietSince) quietSince = performance.now();
        else if (performance.now() - quietSince > QUIET_MS) quiet();
      } else quietSince = 0;
    }, 5);
  };
  p.ready = context.resume()
    .then(() => context.audioWorklet.addModule(URL.createObjectURL(new Blob([worklet], { type: 'text/javascript' }))))
    .then(() => {
      const node = new AudioWorkletNode(context, 'onset');
      node.port.onmessage = (e) => (e.data.quiet ? quiet() : onset(e.data.onset));
      source.connect(node);
      node.connect(sink);
      p.method = 'an AudioWorklet';
    })
    .catch((error) => {
      analyse();
      p.method = 'an AnalyserNode polled every 5 ms (the worklet module was refused: ' + (error && error.name) + ')';
    })
    .then(() => p.method);
  // The first onset seen after the page's time \`after\`, or null within \`ms\`.
  p.soundAfter = (after, ms) => new Promise((resolve) => {
    const deadline = performance.now() + ms;
    const look = () => {
      const found = p.onsets.find((o) => o.seen >= after);
      if (found) return resolve(found.at);
      if (performance.now() > deadline) return resolve(null);
      setTimeout(look, 10);
    };
    look();
  });
  // The page's point at a fraction of the picture (the video shows it whole, centred).
  p.point = (fx, fy) => {
    const r = video.getBoundingClientRect();
    const scale = Math.min(r.width / video.videoWidth, r.height / video.videoHeight);
    const x0 = r.left + (r.width - video.videoWidth * scale) / 2, y0 = r.top + (r.height - video.videoHeight * scale) / 2;
    return { x: x0 + fx * video.videoWidth * scale, y: y0 + fy * video.videoHeight * scale };
  };
  // The next press's time and the expected display time of the first presented frame whose pixels around the
  // press point (a fraction of the picture) differ from those before it: its ripple.
  p.ripple = (fx, fy) => new Promise((resolve) => {
    const w = video.videoWidth, h = video.videoHeight, half = Math.round(Math.max(12, w / 40));
    const box = { x: Math.round(fx * w) - half, y: Math.round(fy * h) - half, w: 2 * half, h: 2 * half };
    const canvas = new OffscreenCanvas(box.w, box.h);
    const ctx = canvas.getContext('2d', { willReadFrequently: true });
    const grab = () => { ctx.drawImage(video, box.x, box.y, box.w, box.h, 0, 0, box.w, box.h); return ctx.getImageData(0, 0, box.w, box.h).data; };
    const before = grab();
    const from = p.presses.length;
    const deadline = performance.now() + 3000;
    const onFrame = (now, meta) => {
      const pressed = p.presses[from];
      if (pressed !== undefined && meta.expectedDisplayTime >= pressed) {
        const after = grab();
        let changed = 0;
        for (let i = 0; i < after.length; i += 4) {
          const d = Math.abs(after[i] - before[i]) + Math.abs(after[i + 1] - before[i + 1]) + Math.abs(after[i + 2] - before[i + 2]);
          if (d > 120) changed++;
        }
        if (changed > 8) return resolve({ pressed, frame: meta.expectedDisplayTime });
      }
      if (performance.now() > deadline) return resolve(null);
      video.requestVideoFrameCallback(onFrame);
    };
    video.requestVideoFrameCallback(onFrame);
  });
  return p;
})();
`;

export interface Probe {
  context: AudioContext;
  method: string;
  ready: Promise<string>;
  loud: boolean;
  quietAt: number;
  keys: number[];
  presses: number[];
  soundAfter(after: number, ms: number): Promise<number | null>;
  point(fx: number, fy: number): { x: number; y: number };
  ripple(fx: number, fy: number): Promise<{ pressed: number; frame: number } | null>;
}
export type Win = Window & { soundProbe: Probe; benchPcs: RTCPeerConnection[] };

/** Launches `app` through the portal; returns its page, playing, with the probe installed, and its session. */
export async function launch(
  browser: Browser,
  stack: Stack,
  app: string,
  profile = 'small',
  withProbe = true,
): Promise<{ page: Page; session: string }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.addInitScript({ content: keepConnections });
  await page.goto(`${stack.baseURL}/launch?app=${app}&profile=${profile}`);
  await page.getByRole('button', { name: 'Review' }).click();
  await page.getByRole('button', { name: 'Launch', exact: true }).click();
  await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 60_000 });
  const session = new URL(page.url()).pathname.split('/').at(-1) ?? '';
  await page.getByTestId('player-state').filter({ hasText: 'Playing' }).waitFor({ timeout: 30_000 });
  await page.waitForFunction(() => (document.querySelector('video')?.videoWidth ?? 0) > 0, undefined, {
    timeout: 15_000,
  });
  // A session without sound has nothing for the probe to hear.
  if (!withProbe) return { page, session };
  await page.evaluate(probe);
  const method = await page.evaluate(async () => {
    const p = (window as unknown as Win).soundProbe;
    return `${await p.ready}; the context's baseLatency ${(p.context.baseLatency * 1000).toFixed(1)} ms, outputLatency ${(p.context.outputLatency * 1000).toFixed(1)} ms`;
  });
  console.log(`(${app}, ${profile}: the page finds onsets with ${method})`);
  return { page, session };
}

export async function end(stack: Stack, page: Page, session: string) {
  await page.close();
  await fetch(`${stack.apiURL}/stream/${session}`, { method: 'DELETE' });
}

/** Waits until the stream has been quiet for `ms`. */
export async function quiet(page: Page, ms = 150) {
  await page.waitForFunction(
    (ms) => {
      const p = (window as unknown as Win).soundProbe;
      return !p.loud && performance.now() - p.quietAt > ms;
    },
    ms,
    { timeout: 10_000, polling: 20 },
  );
}

/** The time from the latest keydown (or press) stamped in the page to the next onset of sound; null: none in 2 s. */
export function soundAfterLast(page: Page, what: 'keys' | 'presses'): Promise<number | null> {
  return page.evaluate(async (what) => {
    const p = (window as unknown as Win).soundProbe;
    const stamp = p[what].at(-1);
    if (stamp === undefined) return null;
    const at = await p.soundAfter(stamp, 2000);
    return at === null ? null : at - stamp;
  }, what);
}

export async function clickVideo(page: Page, fx: number, fy: number) {
  const point = await page.evaluate(({ fx, fy }) => (window as unknown as Win).soundProbe.point(fx, fy), {
    fx,
    fy,
  });
  await page.mouse.click(point.x, point.y);
}
