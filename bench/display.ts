/**
 * The display host against the usual way to put an X11 program in a browser, VNC (Xvfb + x11vnc +
 * websockify + noVNC, tuned for latency), on the same terminal at 960x540 in the same run:
 *   key to photon  a key sent from the page until a presented frame shows changed pixels (30 keys)
 *   bandwidth      while the terminal scrolls continuously (10 s)
 *   server CPU     Xvfb + capture + encode (for noVNC: Xvfb + x11vnc + websockify), the program apart
 * and the display host's CPU at 1280x720 30 fps while the terminal scrolls (target <= 0.6 core). The display
 * host is measured twice, streaming VP8 (libvpx) and H.264 (libx264, or h264_nvenc on an NVIDIA GPU), with
 * the encoder's own CPU (ffmpeg alone) beside the server's.
 * The noVNC figures come from its peer script: STREAMGATE_NOVNC_PEER=<path to novnc.mjs>; without it only
 * the display host is measured. Usage: npx tsx bench/display.ts
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium, type Browser, type Page } from 'playwright-core';
import { chromiumLaunchOptions } from '../e2e/support/chromium';
import { freePort, freeUdpPort } from '../e2e/support/ports';
import { installWhepClient, type WhepPageApi } from '../e2e/support/whep-test-client.ts';
import { cpuSeconds as cpu, median, quantile } from './stats';
import { descendantNamed } from '../streamer/display/x-server.ts';
import { stopChild } from '../streamer/runtime/lifecycle';

declare const whep: WhepPageApi;

const TRIALS = Number(process.env.BENCH_KEYS ?? 30);
const SCROLL_SECONDS = Number(process.env.BENCH_SCROLL_SECONDS ?? 10);
const SCROLL = 'while true; do date; ls -la /usr/bin | head -40; done';
/**
 * The terminal echoes the keys typed for key to photon, and starts scrolling when it reads a line "go": typing
 * the whole loop into a shell proved unreliable on a busy machine (a lost key and nothing scrolls).
 */
const XTERM = [
  ...['xterm', '-fa', 'Monospace', '-fs', '18', '-bg', 'black', '-fg', 'white', '-e', 'bash', '-c'],
  `while read -r line; do [ "$line" = go ] && break; done; ${SCROLL}`,
];
/** The streaming side, without the program it streams: the host (capture, WebRTC), its Xvfb and its ffmpeg. */
type Part = 'host' | 'Xvfb' | 'ffmpeg';
function serverPids(host: number): Record<Part, number[]> {
  const pids: Record<Part, number[]> = { host: [host], Xvfb: [], ffmpeg: [] };
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === host && name === 'ffmpeg') pids.ffmpeg.push(Number(entry));
    } catch {
      // gone
    }
  }
  // The X server runs in its sandbox, below the bwrap the host started.
  const xvfb = descendantNamed(host, 'Xvfb');
  if (xvfb !== undefined) pids.Xvfb.push(xvfb);
  return pids;
}

/** Page helpers: key to changed pixels in a presented frame, and the bytes the peer connection received. */
const pageHelpers = `(() => {
  const pcs = [];
  const Native = window.RTCPeerConnection;
  window.RTCPeerConnection = function (...args) { const pc = new Native(...args); pcs.push(pc); return pc; };
  window.RTCPeerConnection.prototype = Native.prototype;
  window.received = async () => {
    const total = { bytes: 0, frames: 0 };
    for (const pc of pcs) (await pc.getStats()).forEach((s) => {
      if (s.type === 'inbound-rtp') { total.bytes += s.bytesReceived; total.frames += s.framesDecoded ?? 0; }
    });
    return total;
  };
  window.keyToPhoton = (i, key) => new Promise((resolve) => {
    const video = document.querySelectorAll('video')[i];
    const canvas = document.createElement('canvas');
    // A third of the size each way: a changed glyph still changes pixels, and reading costs a ninth.
    canvas.width = Math.round(video.videoWidth / 3); canvas.height = Math.round(video.videoHeight / 3);
    const ctx = canvas.getContext('2d', { willReadFrequently: true });
    const grab = () => { ctx.drawImage(video, 0, 0, canvas.width, canvas.height); return ctx.getImageData(0, 0, canvas.width, canvas.height).data; };
    const base = grab();
    const sent = performance.now();
    whep.send(i, { type: 'keydown', key, code: 'Key' + key.toUpperCase() });
    whep.send(i, { type: 'keyup', key, code: 'Key' + key.toUpperCase() });
    const check = () => {
      const now = grab();
      for (let p = 0; p < now.length; p += 4) if (Math.abs(now[p] - base[p]) > 40) return resolve(performance.now() - sent);
      if (performance.now() - sent > 3000) return resolve(null);
      video.requestVideoFrameCallback(check);
    };
    video.requestVideoFrameCallback(check);
  });
})();`;

interface Host {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

type Codec = 'vp8' | 'h264';

async function startHost(width: number, height: number, codec: Codec): Promise<Host> {
  const signaling = await freePort();
  const media = await freeUdpPort();
  const size = ['--width', String(width), '--height', String(height), '--max-width', String(width)];
  // BENCH_HOST_NODE_ARGS: extra Node flags for the host, e.g. --cpu-prof to see where its time goes.
  const nodeArgs = (process.env.BENCH_HOST_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // The display host's own program, as a person runs it: its steady figures (CPU, bandwidth, key to photon) do
  // not depend on whether Node loads it from the service's bundle or from its sources.
  const host = ['--import', 'tsx', 'streamer/display/main.ts', '--signaling-port', String(signaling)];
  const flags = ['--media-port', String(media), '--codec', codec, ...size, '--max-height', String(height)];
  const child = spawn(process.execPath, [...nodeArgs, ...host, ...flags, '--', ...XTERM], {
    cwd: path.resolve(import.meta.dirname, '..'),
    stdio: ['ignore', 'ignore', process.env.BENCH_VERBOSE ? 'inherit' : 'ignore'],
  });
  const url = `http://127.0.0.1:${signaling}`;
  for (let i = 0; i < 300; i++) {
    if ((await fetch(`${url}/health`).catch(() => null))?.status === 200) break;
    await sleep(100);
  }
  return {
    child,
    url,
    stop: () => stopChild(child, 5_000),
  };
}

async function typeText(page: Page, text: string) {
  for (const key of text) {
    await page.evaluate(
      ([k]) => {
        whep.send(0, { type: 'keydown', key: k, code: '' });
        whep.send(0, { type: 'keyup', key: k, code: '' });
      },
      [key],
    );
  }
  await page.evaluate(() => {
    whep.send(0, { type: 'keydown', key: 'Enter', code: 'Enter' });
    whep.send(0, { type: 'keyup', key: 'Enter', code: 'Enter' });
  });
}

/** One display host session in Chromium: key to photon, then scrolling. */
async function measureHost(browser: Browser, width: number, height: number, keys: number, codec: Codec) {
  const host = await startHost(width, height, codec);
  // A new page, never navigated: a navigated about:blank may not fetch loopback addresses.
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  try {
    await page.addScriptTag({ content: pageHelpers });
    await installWhepClient(page);
    await page.evaluate((u) => whep.connect(u), host.url);
    await page.evaluate(() => whep.ready(0));
    await sleep(1000);
    const samples: number[] = [];
    const letters = 'asdfghjkl';
    for (let i = 0; i < keys; i++) {
      if (i > 0 && i % 25 === 0) await typeText(page, '');
      const ms = await page.evaluate(
        ([k]) =>
          (window as unknown as { keyToPhoton(i: number, k: string): Promise<number | null> }).keyToPhoton(
            0,
            k as string,
          ),
        [letters[i % letters.length]],
      );
      if (ms !== null) samples.push(ms);
      await sleep(150);
    }
    // Enter first: the letters typed above are a line of their own, then "go" starts the scrolling.
    await typeText(page, '');
    await typeText(page, 'go');
    await sleep(1000);
    const pids = serverPids(host.child.pid as number);
    const cpuOf = () => {
      const of = (part: Part) => pids[part].reduce((sum, pid) => sum + cpu(pid), 0);
      return { host: of('host'), Xvfb: of('Xvfb'), ffmpeg: of('ffmpeg') };
    };
    const received = () =>
      page.evaluate(() =>
        (window as unknown as { received(): Promise<{ bytes: number; frames: number }> }).received(),
      );
    const at0 = await received();
    const cpu0 = cpuOf();
    const t0 = performance.now();
    await sleep(SCROLL_SECONDS * 1000);
    const at1 = await received();
    const cpu1 = cpuOf();
    const secs = (performance.now() - t0) / 1000;
    return {
      k2p: { median: median(samples), p95: quantile(samples, 0.95), n: samples.length },
      mbps: ((at1.bytes - at0.bytes) * 8) / secs / 1e6,
      // Frames shown while scrolling: proof that the terminal did scroll (a still picture sends one a second).
      fps: (at1.frames - at0.frames) / secs,
      cores: (cpu1.host + cpu1.Xvfb + cpu1.ffmpeg - cpu0.host - cpu0.Xvfb - cpu0.ffmpeg) / secs,
      encoderCores: (cpu1.ffmpeg - cpu0.ffmpeg) / secs,
      xvfbCores: (cpu1.Xvfb - cpu0.Xvfb) / secs,
      hostCores: (cpu1.host - cpu0.host) / secs,
    };
  } finally {
    await page.close();
    await host.stop();
  }
}

interface NoVnc {
  k2p: { median: number; p95: number };
  scroll: { wsPayloadMbps: number; serverCores: number };
}

/** Less than this while "scrolling" means the terminal never scrolled (a real scroll sends megabits). */
const MIN_SCROLL_MBPS = 0.1;

function runNoVnc(): NoVnc | null {
  const peer = process.env.STREAMGATE_NOVNC_PEER;
  if (!peer) return null;
  const json = path.join(tmpdir(), `novnc-${process.pid}.json`);
  const run = spawnSync(
    process.execPath,
    [peer, `--trials=${TRIALS}`, `--scroll-secs=${SCROLL_SECONDS}`, `--json=${json}`],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  if (run.status !== 0) throw new Error('the noVNC peer failed');
  const figures = JSON.parse(readFileSync(json, 'utf8')) as NoVnc;
  // The peer types its scroll loop into a shell; on a busy machine the loop sometimes never starts, and a
  // terminal that does not scroll costs next to nothing: no figure to compare with.
  if (!(figures.scroll.wsPayloadMbps >= MIN_SCROLL_MBPS)) {
    console.log(
      `noVNC's terminal did not scroll (${figures.scroll.wsPayloadMbps} Mbit/s): its scrolling figures are left out; run the bench again`,
    );
    return { ...figures, scroll: { wsPayloadMbps: NaN, serverCores: NaN } };
  }
  return figures;
}

async function main() {
  const novnc = runNoVnc();
  const browser = await chromium.launch(chromiumLaunchOptions);
  try {
    const codecs = (process.env.BENCH_CODECS ?? 'vp8,h264').split(',') as Codec[];
    const small: Record<string, Awaited<ReturnType<typeof measureHost>>> = {};
    const large: Record<string, Awaited<ReturnType<typeof measureHost>>> = {};
    for (const codec of codecs) small[codec] = await measureHost(browser, 960, 540, TRIALS, codec);
    for (const codec of codecs) large[codec] = await measureHost(browser, 1280, 720, 0, codec);
    const f = (n: number | undefined, d = 1) => (n === undefined || Number.isNaN(n) ? '-' : n.toFixed(d));
    const ratio = (a: number | undefined, b: number | undefined) =>
      a !== undefined && b && !Number.isNaN(b) ? (a / b).toFixed(2) : '-';
    const first = small[codecs[0] as string];
    const n = first?.k2p.n ?? 0;
    console.log(
      `\nDisplay host against noVNC, xterm at 960x540 (${n} keys, ${SCROLL_SECONDS} s of scrolling)`,
    );
    const head = codecs.map((c) => `host ${c}`.padStart(12)).join(' ');
    console.log(`measure                                   ${head}   noVNC   ratio   target`);
    const row = (
      label: string,
      pick: (m: (typeof small)[string]) => number,
      other: number | undefined,
      d: number,
      target = '',
    ) => {
      const cells = codecs.map((c) => f(small[c] && pick(small[c]), d).padStart(12)).join(' ');
      const best = Math.min(...codecs.map((c) => (small[c] ? pick(small[c]) : Infinity)));
      console.log(
        `${label.padEnd(42)}${cells} ${f(other, d).padStart(7)} ${ratio(best, other).padStart(7)}   ${target}`,
      );
    };
    row('key to photon median (ms)', (m) => m.k2p.median, novnc?.k2p.median, 1, '<= 1');
    row('key to photon p95 (ms)', (m) => m.k2p.p95, novnc?.k2p.p95, 1);
    row('bandwidth while scrolling (Mbit/s)', (m) => m.mbps, novnc?.scroll.wsPayloadMbps, 2, '<= 0.33');
    row('server CPU while scrolling (cores)', (m) => m.cores, novnc?.scroll.serverCores, 2, '<= 1');
    row('  of which Xvfb (draws the terminal)', (m) => m.xvfbCores, undefined, 2);
    row('  of which the host (capture, WebRTC)', (m) => m.hostCores, undefined, 2);
    row('  of which the encoder (ffmpeg)', (m) => m.encoderCores, undefined, 2);
    row('frames shown while scrolling (per s)', (m) => m.fps, undefined, 1);
    for (const codec of codecs) {
      const l = large[codec];
      console.log(
        `display host ${codec} at 1280x720 30 fps, scrolling: ${f(l?.cores, 2)} cores, encoder ${f(l?.encoderCores, 2)} (target <= 0.6; ${f(l?.mbps, 2)} Mbit/s; ${f(l?.fps)} frames per second)`,
      );
    }
    console.log('(the ratio column compares the best display host figure with noVNC)');
    if (!novnc) console.log('noVNC: not measured (set STREAMGATE_NOVNC_PEER to its novnc.mjs to compare)');
  } finally {
    await browser.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
