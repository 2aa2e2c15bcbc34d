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
 * Usage: npx tsx bench/sound.ts [--keys 30] [--presses 30] [--skip-display] [--keys-only] [--marks] [--list]
 * (build the portal first: npm run build). `--list` prints every time; `--keys-only` measures 1 and 2 alone;
 * `--marks` splits each key's time at the arrival of its first audio packet in the page (getStats, polled).
 */
import type { Page } from 'playwright-core';
import type { Stack } from '../e2e/support/stack';
import { median, quantile } from './stats';
import { WireMarks } from './sound-marks';
import { benchWithBrowser } from './with-browser';
import { clickVideo, end, launch, quiet, soundAfterLast, wait, type Win } from './sound-probe';
import {
  audioReceived,
  cost,
  CPU_TARGET,
  descendants,
  jitterNote,
  printCost,
  verdict,
  WINDOW_MS,
} from './sound-cost';

const args = process.argv.slice(2);
const count = (flag: string) => {
  const at = args.indexOf(flag);
  return at >= 0 ? Math.max(5, Number(args[at + 1]) || 30) : 30;
};
const keys = count('--keys');
/** Only the two keys-to-sound figures (1 and 2), for measuring a change to them by turns. */
const keysOnly = args.includes('--keys-only');
const presses = count('--presses');
const KEY_TARGET_MS = 80;
const SYNC_TARGET_MS = 40;
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
  - id: quiet
    name: Quiet
    description: 640x360 at 30 fps, without sound.
    applications: [{ id: '*', versions: ['*'] }]
    settings: { width: 640, height: 360, fps: 30, max_width: 640, max_height: 360, audio: false }
  - id: hd
    name: HD
    description: 1280x720 at 30 fps.
    applications: [{ id: '*', versions: ['*'] }]
    settings: { width: 1280, height: 720, fps: 30, max_width: 1280, max_height: 720 }
`;

const list = (values: number[]) => {
  if (args.includes('--list')) console.log(`  each (ms): ${values.map((v) => v.toFixed(0)).join(' ')}`);
};

/**
 * Times `keys` keys, each pressed by `press` once the stream is quiet, from its keydown in the page to the next
 * onset of sound, and prints them under `title`.
 */
async function timeKeys(page: Page, title: string, press: () => Promise<void>) {
  const times: number[] = [];
  let misses = 0;
  const before = await audioReceived(page);
  const wire = args.includes('--marks') ? await WireMarks.start(page) : null;
  const browserPart: number[] = [];
  const appPart: number[] = [];
  const receiverPart: number[] = [];
  const output = await page.evaluate(
    () => (window as unknown as Win).soundProbe.context.outputLatency * 1000,
  );
  try {
    for (let i = 0; i < keys; i++) {
      await quiet(page);
      await press();
      const ms = await soundAfterLast(page, 'keys');
      if (ms === null) misses++;
      else times.push(ms);
      if (wire && ms !== null) {
        // tcpdump's lines come a little after the datagrams.
        await wait(20);
        const stamp = await page.evaluate(() => (window as unknown as Win).soundProbe.keys.at(-1) ?? 0);
        const mark = wire.after(stamp);
        if (mark) {
          browserPart.push(mark.input - stamp);
          appPart.push(mark.audio - mark.input);
          receiverPart.push(stamp + ms - output - mark.audio);
        }
      }
    }
  } finally {
    await wire?.stop();
  }
  const spread = wire?.sendSpread() ?? [];
  const note = await jitterNote(page, before);
  // The speaker's own delay (Chromium's output buffer; a headless one here) is the listener's device, not the
  // stream's: the target counts to the onset in the received audio, as Web Audio gets it.
  console.log(
    `${title}, ${times.length} keys` + (misses ? ` (${misses} not heard within 2 s)` : '') + `; ${note}`,
  );
  list(times);
  const m = median(times);
  const received = m - output;
  console.log(
    `  to its onset in the received audio: median ${received.toFixed(1)} ms, p95 ${(quantile(times, 0.95) - output).toFixed(1)} ms (target: median <= ${KEY_TARGET_MS} ms: ${verdict(received <= KEY_TARGET_MS)})`,
  );
  console.log(
    `  to leaving the speaker (+ its output latency, ${output.toFixed(1)} ms): median ${m.toFixed(1)} ms, p95 ${quantile(times, 0.95).toFixed(1)} ms`,
  );
  if (wire) {
    console.log(
      `  marks on the wire (${appPart.length} keys), medians: key to its datagram ${median(browserPart).toFixed(1)} ms, that datagram to the first audio packet ${median(appPart).toFixed(1)} ms, that packet to the onset in the received audio ${median(receiverPart).toFixed(1)} ms`,
    );
    list(browserPart);
    list(appPart);
    list(receiverPart);
    console.log(
      `  the application's sending, each sound's spread of departures against timestamps: median ${median(spread).toFixed(1)} ms, p95 ${quantile(spread, 0.95).toFixed(1)} ms`,
    );
  }
}

/** 1. Keys held ~150 ms in the sample application's viewer until its tone would leave the speaker. */
function keyToSound(page: Page) {
  return timeKeys(
    page,
    "1. key held in the portal's viewer to its tone, the sample application",
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
  // In silence the application encodes and sends nothing: the tone's cost is the whole of sound's.
  const more = playing.core - silent.core;
  console.log(
    `  what the tone costs the application: ${more.toFixed(3)} core (target <= ${CPU_TARGET}: ${verdict(more <= CPU_TARGET)})`,
  );
}

/** The display host's processes under the service, with short names: the host, and pulseaudio and parec. */
function hostProcesses(stack: Stack): { pids: number[]; names: string[] } {
  const host = descendants(stack.process.pid!).filter(
    ({ cmd }) =>
      /(^|\/)(pulseaudio|parec)$/.test(cmd[0] ?? '') ||
      cmd.some((a) => a.endsWith('streamer/display/main.ts') || a.endsWith('dist-apps/display.mjs')),
  );
  const names = host.map(
    ({ cmd }) => (cmd.find((a) => /display|pulseaudio|parec/.test(a)) ?? '').split('/').at(-1) ?? '',
  );
  return { pids: host.map((h) => h.pid), names };
}

/** The display host of a session without sound (profile `quiet`, audio: false) at a shell prompt: its CPU. */
async function hostWithoutSound(page: Page, stack: Stack): Promise<number> {
  await page.getByLabel('Session stream', { exact: true }).click();
  await wait(1_000);
  return (await cost(page, hostProcesses(stack).pids)).core;
}

/** 2 and 4 on the display host: keys to beeps from bench/keybeep.mjs, then its tone's cost against `without`. */
async function displayHost(page: Page, stack: Stack, without: number) {
  const type = async (text: string) => {
    await page.keyboard.type(text, { delay: 30 });
    await page.keyboard.press('Enter');
  };
  // A click gives the viewer the keyboard.
  await clickVideo(page, 0.5, 0.5);
  await wait(1_000);
  const { pids, names } = hostProcesses(stack);
  const silent = await cost(page, pids);

  await type(`node ${BEEP_FILE}`);
  await wait(1_500);
  await timeKeys(
    page,
    `2. key in the portal's viewer to its beep, ${BEEP_FILE} in an xterm on the display host (pacat, 10 ms)`,
    () => page.keyboard.press('j'),
  );
  await page.keyboard.press('q');
  await wait(500);
  if (keysOnly) return;

  await type(`node ${BEEP_FILE} tone`);
  await wait(2_000);
  const playing = await cost(page, pids);
  await page.keyboard.press('q');
  console.log(
    `4. cost of sound on the display host (${names.join(', ')}) with one viewer, over ${WINDOW_MS / 1000} s`,
  );
  console.log(`  the same session without sound (audio: false), a shell prompt: ${without.toFixed(3)} core`);
  printCost('with sound, in silence (a shell prompt)', silent, false, names);
  printCost('with sound, a 440 Hz tone playing (pacat, 50 ms)', playing, false, names);
  const more = playing.core - without;
  console.log(
    `  what sound costs the session: ${(silent.core - without).toFixed(3)} core in silence, ${more.toFixed(3)} playing (target <= ${CPU_TARGET} core playing: ${verdict(more <= CPU_TARGET)})`,
  );
}

benchWithBrowser({ catalog, beside: [BEEP_FILE] }, async (browser, stack) => {
  const sample = await launch(browser, stack, 'sample');
  try {
    // A click gives the viewer the keyboard (and beeps).
    await clickVideo(sample.page, 0.3, 0.8);
    await wait(1_000);
    await keyToSound(sample.page);
    if (!keysOnly) await sampleCost(sample.page, stack);
  } finally {
    await end(stack, sample.page, sample.session);
  }
  // At 640x360 the ripple's first 160 ms are hidden under the 24-pixel pointer square; at 1280x720, 23 ms.
  if (!keysOnly) {
    const hd = await launch(browser, stack, 'sample', 'hd');
    try {
      // A first press, not counted: the stream's first seconds at a new size may be blurred.
      await clickVideo(hd.page, 0.3, 0.8);
      await wait(1_500);
      await pictureAndSound(hd.page);
    } finally {
      await end(stack, hd.page, hd.session);
    }
  }
  if (args.includes('--skip-display')) console.log('2. (the display host skipped: --skip-display)');
  else {
    let without = 0;
    if (!keysOnly) {
      const quietApp = await launch(browser, stack, 'keys', 'quiet', false);
      try {
        without = await hostWithoutSound(quietApp.page, stack);
      } finally {
        await end(stack, quietApp.page, quietApp.session);
      }
    }
    const keysApp = await launch(browser, stack, 'keys');
    try {
      await displayHost(keysApp.page, stack, without);
    } finally {
      await end(stack, keysApp.page, keysApp.session);
    }
  }
});
