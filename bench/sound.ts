/**
 * Sound as a person meets it, in the portal's viewer (a 1280x800 window, a 640x360 stream):
 * 1. a key held in the viewer of the sample application until its tone would leave the speaker;
 * 2. the same for a program on the display host that beeps on a key (bench/keybeep.mjs in an xterm);
 * 3. a pointer press on the sample application: the first presented frame showing its ripple against the onset of
 *    its beep (the two are made at the same instant);
 * 4. what sound costs a session: the sample application's CPU in silence and with a key held, the display host's
 *    (host, pulseaudio, parec) in silence and with a tone playing, and the audio bitrate the viewer receives.
 * The page reads the stream's sound with Web Audio (an AudioWorklet, or an AnalyserNode polled every ~5 ms where
 * the portal's Content-Security-Policy refuses a worklet module from a Blob URL) and turns an onset's context time
 * into the page's clock with getOutputTimestamp(): the time that sample would leave the speaker, comparable with
 * a key's event.timeStamp and a video frame's expectedDisplayTime.
 * Usage: npx tsx bench/sound.ts [--keys 30] [--presses 30] [--skip-display] [--list]  (build the portal first:
 * npm run build). `--list` prints every time.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { chromiumLaunchOptions } from '../e2e/support/chromium';
import { startStack, type Stack } from '../e2e/support/stack';
import { cpuSeconds, median, quantile } from './stats';

const args = process.argv.slice(2);
const count = (flag: string) => {
  const at = args.indexOf(flag);
  return at >= 0 ? Math.max(5, Number(args[at + 1]) || 30) : 30;
};
const keys = count('--keys');
const presses = count('--presses');
const KEY_TARGET_MS = 80;
const SYNC_TARGET_MS = 40;
const CPU_TARGET = 0.05;
const BITRATE_TARGET = 64;
const WINDOW_MS = 10_000;
const BEEP_FILE = 'bench/keybeep.mjs';

const catalog = `
applications:
  - id: sample
    name: Sample Viewer
    description: The sample streaming application.
    versions: [{ version: 1.0.0, description: Test build. }]
  - id: keys
    name: Key beeper
    description: A terminal on the display host, for a program that beeps on a key.
    versions:
      - version: 1.0.0
        description: Debian's xterm and bench/keybeep.mjs.
        launch:
          display:
            command: [xterm, -fa, DejaVu Sans Mono, -fs, '13', -bg, '#1d1f21', -fg, '#e0e0e0', -e, bash, --norc]
            files: [${BEEP_FILE}]
profiles:
  - id: small
    name: Small
    description: 640x360 at 30 fps.
    applications: [{ id: '*', versions: ['*'] }]
    settings: { width: 640, height: 360, fps: 30, max_width: 640, max_height: 360 }
  - id: hd
    name: HD
    description: 1280x720 at 30 fps.
    applications: [{ id: '*', versions: ['*'] }]
    settings: { width: 1280, height: 720, fps: 30, max_width: 1280, max_height: 720 }
`;

/** Keeps every RTCPeerConnection the page makes, for getStats(). */
const keepConnections = `
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
const probe = `
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

interface Probe {
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
type Win = Window & { soundProbe: Probe; benchPcs: RTCPeerConnection[] };

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const verdict = (ok: boolean) => (ok ? 'met' : 'missed');
const list = (values: number[]) => {
  if (args.includes('--list')) console.log(`  each (ms): ${values.map((v) => v.toFixed(0)).join(' ')}`);
};

/** Launches `app` through the portal; returns its page, playing, with the probe installed, and its session. */
async function launch(
  browser: Browser,
  stack: Stack,
  app: string,
  profile = 'small',
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
  await page.evaluate(probe);
  const method = await page.evaluate(async () => {
    const p = (window as unknown as Win).soundProbe;
    return `${await p.ready}; the context's baseLatency ${(p.context.baseLatency * 1000).toFixed(1)} ms, outputLatency ${(p.context.outputLatency * 1000).toFixed(1)} ms`;
  });
  console.log(`(${app}, ${profile}: the page finds onsets with ${method})`);
  return { page, session };
}

async function end(stack: Stack, page: Page, session: string) {
  await page.close();
  await fetch(`${stack.apiURL}/stream/${session}`, { method: 'DELETE' });
}

/** Waits until the stream has been quiet for `ms`. */
async function quiet(page: Page, ms = 150) {
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
function soundAfterLast(page: Page, what: 'keys' | 'presses'): Promise<number | null> {
  return page.evaluate(async (what) => {
    const p = (window as unknown as Win).soundProbe;
    const stamp = p[what].at(-1);
    if (stamp === undefined) return null;
    const at = await p.soundAfter(stamp, 2000);
    return at === null ? null : at - stamp;
  }, what);
}

async function clickVideo(page: Page, fx: number, fy: number) {
  const point = await page.evaluate(({ fx, fy }) => (window as unknown as Win).soundProbe.point(fx, fy), {
    fx,
    fy,
  });
  await page.mouse.click(point.x, point.y);
}

/**
 * Times `keys` keys, each pressed by `press` once the stream is quiet, from its keydown in the page to the next
 * onset of sound, and prints them under `title`.
 */
async function timeKeys(page: Page, title: string, press: () => Promise<void>) {
  const times: number[] = [];
  let misses = 0;
  const before = await audioReceived(page);
  for (let i = 0; i < keys; i++) {
    await quiet(page);
    await press();
    const ms = await soundAfterLast(page, 'keys');
    if (ms === null) misses++;
    else times.push(ms);
  }
  const note = await jitterNote(page, before);
  console.log(
    `${title}, ${times.length} keys` + (misses ? ` (${misses} not heard within 2 s)` : '') + `; ${note}`,
  );
  list(times);
  const m = median(times);
  console.log(
    `  median ${m.toFixed(1)} ms, p95 ${quantile(times, 0.95).toFixed(1)} ms (target: median <= ${KEY_TARGET_MS} ms: ${verdict(m <= KEY_TARGET_MS)})`,
  );
}

/** 1. Keys held ~150 ms in the sample application's viewer until its tone would leave the speaker. */
function keyToSound(page: Page) {
  return timeKeys(
    page,
    "1. key held in the portal's viewer to its tone leaving the speaker, the sample application",
    async () => {
      await page.keyboard.down('KeyJ');
      await wait(150);
      await page.keyboard.up('KeyJ');
    },
  );
}

/** 3. Pointer presses: the first frame showing the ripple against the onset of the beep. */
async function pictureAndSound(page: Page) {
  const offsets: number[] = [];
  const pictures: number[] = [];
  const sounds: number[] = [];
  let misses = 0;
  const before = await audioReceived(page);
  for (let i = 0; i < presses; i++) {
    // Below the panel, left of the orbit, above the marks strip.
    const fx = 0.1 + 0.08 * (i % 6);
    const fy = 0.55 + 0.08 * (Math.floor(i / 6) % 3);
    const point = await page.evaluate(({ fx, fy }) => (window as unknown as Win).soundProbe.point(fx, fy), {
      fx,
      fy,
    });
    await page.mouse.move(point.x, point.y);
    await wait(250);
    await quiet(page);
    const ripple = page.evaluate(({ fx, fy }) => (window as unknown as Win).soundProbe.ripple(fx, fy), {
      fx,
      fy,
    });
    await wait(50);
    await page.mouse.down();
    await wait(40);
    await page.mouse.up();
    const seen = await ripple;
    const heard =
      seen &&
      (await page.evaluate(
        (after) => (window as unknown as Win).soundProbe.soundAfter(after, 2000),
        seen.pressed,
      ));
    if (!seen || heard === null || heard === undefined) {
      misses++;
    } else {
      offsets.push(heard - seen.frame);
      pictures.push(seen.frame - seen.pressed);
      sounds.push(heard - seen.pressed);
    }
    // The ripple fades in 0.7 s.
    await wait(700);
  }
  console.log(
    `3. pointer press on the sample application: its beep leaving the speaker minus the first presented frame showing its ripple, ${offsets.length} presses` +
      (misses ? ` (${misses} not both seen and heard)` : ''),
  );
  list(offsets);
  const m = median(offsets);
  console.log(
    `  median ${m.toFixed(1)} ms (sound minus picture), p5 ${quantile(offsets, 0.05).toFixed(1)}, p95 ${quantile(offsets, 0.95).toFixed(1)} ms (target: within ±${SYNC_TARGET_MS} ms: ${verdict(Math.abs(m) <= SYNC_TARGET_MS)})`,
  );
  console.log(
    `  press to picture median ${median(pictures).toFixed(1)} ms, press to sound median ${median(sounds).toFixed(1)} ms; ${await jitterNote(page, before)}`,
  );
}

/** Every process under `root` (the service), with its command line. */
function descendants(root: number): { pid: number; cmd: string[] }[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const found: { pid: number; cmd: string[] }[] = [];
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      try {
        found.push({ pid: child, cmd: readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0') });
      } catch {
        // Gone meanwhile.
      }
      walk(child);
    }
  };
  walk(root);
  return found;
}

interface Received {
  bytes: number;
  packets: number;
  /** Seconds that emitted samples spent in the jitter buffer, summed, and how many were emitted. */
  jitterDelay: number;
  emitted: number;
}

/** The page's audio received so far (inbound-rtp of kind audio). */
function audioReceived(page: Page): Promise<Received> {
  return page.evaluate(async () => {
    const sum = { bytes: 0, packets: 0, jitterDelay: 0, emitted: 0 };
    for (const pc of (window as unknown as Win).benchPcs) {
      (await pc.getStats()).forEach(
        (s: {
          type: string;
          kind?: string;
          bytesReceived?: number;
          packetsReceived?: number;
          jitterBufferDelay?: number;
          jitterBufferEmittedCount?: number;
        }) => {
          if (s.type === 'inbound-rtp' && s.kind === 'audio') {
            sum.bytes += s.bytesReceived ?? 0;
            sum.packets += s.packetsReceived ?? 0;
            sum.jitterDelay += s.jitterBufferDelay ?? 0;
            sum.emitted += s.jitterBufferEmittedCount ?? 0;
          }
        },
      );
    }
    return sum;
  });
}

/** The audio jitter buffer's mean delay since `before`, as a note for a figure. */
async function jitterNote(page: Page, before: Received): Promise<string> {
  const after = await audioReceived(page);
  const ms = ((after.jitterDelay - before.jitterDelay) / Math.max(1, after.emitted - before.emitted)) * 1000;
  return `the sound's mean jitter buffer delay meanwhile ${ms.toFixed(1)} ms`;
}

/** CPU of `pids` (a fraction of one core, each and together) and the audio bitrate received over WINDOW_MS. */
async function cost(page: Page, pids: number[]) {
  const cpu0 = pids.map(cpuSeconds);
  const rx0 = await audioReceived(page);
  const t0 = performance.now();
  await wait(WINDOW_MS);
  const cpu1 = pids.map(cpuSeconds);
  const rx1 = await audioReceived(page);
  const seconds = (performance.now() - t0) / 1000;
  const each = cpu1.map((c, i) => (c - cpu0[i]!) / seconds);
  const payload = ((rx1.bytes - rx0.bytes) * 8) / seconds / 1000;
  const withHeaders = payload + ((rx1.packets - rx0.packets) * 12 * 8) / seconds / 1000;
  const core = each.reduce((a, b) => a + b, 0);
  return { core, each, payload, withHeaders, packets: (rx1.packets - rx0.packets) / seconds };
}

function printCost(what: string, c: Awaited<ReturnType<typeof cost>>, cpuTarget: boolean, names?: string[]) {
  const parts = names ? ` (${names.map((n, i) => `${n} ${c.each[i]!.toFixed(3)}`).join(', ')})` : '';
  const cpu = `${c.core.toFixed(3)} core${parts}`;
  console.log(
    `  ${what}: ${cpuTarget ? `${cpu} (target <= ${CPU_TARGET}: ${verdict(c.core <= CPU_TARGET)})` : cpu}; audio ${c.payload.toFixed(1)} kbit/s payload, ${c.withHeaders.toFixed(1)} kbit/s with RTP headers, ${c.packets.toFixed(0)} packets/s (target <= ${BITRATE_TARGET} kbit/s: ${verdict(c.withHeaders <= BITRATE_TARGET)})`,
  );
}

/** 4, the sample application: its CPU and the audio bitrate in silence and with a key held. */
async function sampleCost(page: Page, stack: Stack) {
  const mine = descendants(stack.process.pid!).filter(({ cmd }) =>
    cmd.some((a) => a.endsWith('streamer/sample/main.ts') || a.endsWith('dist-apps/streamer.mjs')),
  );
  console.log(
    `4. cost of sound, the sample application with one viewer (${mine.length} process(es)), over ${WINDOW_MS / 1000} s`,
  );
  if (mine.length === 0) console.log('  (its process was not found under the service)');
  const pids = mine.map((m) => m.pid);
  await quiet(page, 500);
  const silent = await cost(page, pids);
  printCost('in silence', silent, false);
  await page.keyboard.down('KeyK');
  await wait(300);
  const playing = await cost(page, pids);
  await page.keyboard.up('KeyK');
  printCost('a key held (tone)', playing, false);
  console.log(`  what the tone costs the application: ${(playing.core - silent.core).toFixed(3)} core`);
}

/** 2 and 4 on the display host: keys to beeps from bench/keybeep.mjs, then its tone's cost. */
async function displayHost(page: Page, stack: Stack) {
  const type = async (text: string) => {
    await page.keyboard.type(text, { delay: 30 });
    await page.keyboard.press('Enter');
  };
  // A click gives the viewer the keyboard.
  await clickVideo(page, 0.5, 0.5);
  await wait(1_000);
  const host = descendants(stack.process.pid!).filter(
    ({ cmd }) =>
      /(^|\/)(pulseaudio|parec)$/.test(cmd[0] ?? '') ||
      cmd.some((a) => a.endsWith('streamer/display/main.ts') || a.endsWith('dist-apps/display.mjs')),
  );
  const names = host.map(
    ({ cmd }) => (cmd.find((a) => /display|pulseaudio|parec/.test(a)) ?? '').split('/').at(-1) ?? '',
  );
  const pids = host.map((h) => h.pid);
  const silent = await cost(page, pids);

  await type(`node ${BEEP_FILE}`);
  await wait(1_500);
  await timeKeys(
    page,
    `2. key in the portal's viewer to its beep leaving the speaker, ${BEEP_FILE} in an xterm on the display host (pacat, 10 ms)`,
    () => page.keyboard.press('j'),
  );
  await page.keyboard.press('q');
  await wait(500);

  await type(`node ${BEEP_FILE} tone`);
  await wait(2_000);
  const playing = await cost(page, pids);
  await page.keyboard.press('q');
  console.log(
    `4. cost of sound on the display host (${names.join(', ')}) with one viewer, over ${WINDOW_MS / 1000} s`,
  );
  printCost('in silence (a shell prompt)', silent, true, names);
  printCost('a 440 Hz tone playing (pacat, 50 ms)', playing, true, names);
  const sound = (c: typeof silent) =>
    c.each.reduce((a, b, i) => a + (/pulseaudio|parec/.test(names[i]!) ? b : 0), 0);
  console.log(
    `  of which the sound server and its reader (pulseaudio, parec): ${sound(silent).toFixed(3)} core in silence, ${sound(playing).toFixed(3)} playing; the whole grew by ${(playing.core - silent.core).toFixed(3)} core`,
  );
}

async function main() {
  const stack = await startStack({ catalog, beside: [BEEP_FILE] });
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch(chromiumLaunchOptions);
    const sample = await launch(browser, stack, 'sample');
    try {
      // A click gives the viewer the keyboard (and beeps).
      await clickVideo(sample.page, 0.3, 0.8);
      await wait(1_000);
      await keyToSound(sample.page);
      await sampleCost(sample.page, stack);
    } finally {
      await end(stack, sample.page, sample.session);
    }
    // At 640x360 the ripple's first 160 ms are hidden under the 24-pixel pointer square; at 1280x720, 23 ms.
    const hd = await launch(browser, stack, 'sample', 'hd');
    try {
      // A first press, not counted: the stream's first seconds at a new size may be blurred.
      await clickVideo(hd.page, 0.3, 0.8);
      await wait(1_500);
      await pictureAndSound(hd.page);
    } finally {
      await end(stack, hd.page, hd.session);
    }
    if (args.includes('--skip-display')) console.log('2. (the display host skipped: --skip-display)');
    else {
      const keysApp = await launch(browser, stack, 'keys');
      try {
        await displayHost(keysApp.page, stack);
      } finally {
        await end(stack, keysApp.page, keysApp.session);
      }
    }
  } finally {
    try {
      await browser?.close();
    } finally {
      await stack.stop();
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
