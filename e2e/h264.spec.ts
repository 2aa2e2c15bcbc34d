/**
 * H.264 end to end: the display host streaming a real xterm, and the sample application, both with
 * `--codec h264` (x264 here, NVENC on a machine with an NVIDIA GPU), decoded by a real headless Chromium. A
 * viewer whose offer lacks H.264 is refused with a 400 that says why, and a viewer joining later decodes
 * at once from the replayed keyframe (SPS, PPS and IDR).
 */
import { expect, test, type Page } from '@playwright/test';
import { freePort, freeUdpPort } from './support/ports';
import { startStack } from './support/stack';
import { launchStreamer, type StreamerProcess } from './support/streamer-process';
import { readVideo } from './support/video';
import { installWhepClient, type WhepPageApi } from './support/whep-test-client.ts';

declare const whep: WhepPageApi;

const small = ['--width', '640', '--height', '360', '--max-width', '640', '--max-height', '360'];

/** The mime type and fmtp of the codec the viewer's video arrives in, from its stats. */
async function receivedCodec(page: Page, i: number): Promise<{ mimeType: string; fmtp: string } | null> {
  return page.evaluate(async (n) => {
    const pcs = (window as unknown as { testPcs: RTCPeerConnection[] }).testPcs;
    const stats = await (pcs[n] as RTCPeerConnection).getStats();
    let codecId: string | undefined;
    stats.forEach((s: { type: string; kind?: string; codecId?: string }) => {
      if (s.type === 'inbound-rtp' && s.kind === 'video') codecId = s.codecId;
    });
    const codec = codecId ? (stats.get(codecId) as { mimeType: string; sdpFmtpLine?: string }) : undefined;
    return codec ? { mimeType: codec.mimeType, fmtp: codec.sdpFmtpLine ?? '' } : null;
  }, i);
}

/** A page with the WHEP client whose peer connections the test can reach. */
async function viewerPage(page: Page): Promise<void> {
  await page.addScriptTag({
    content: `(() => {
      const Native = window.RTCPeerConnection;
      window.testPcs = [];
      window.RTCPeerConnection = function (...args) { const pc = new Native(...args); window.testPcs.push(pc); return pc; };
      window.RTCPeerConnection.prototype = Native.prototype;
    })();`,
  });
  await installWhepClient(page);
}

async function connect(page: Page, url: string): Promise<number> {
  const i = await page.evaluate((u) => whep.connect(u), url);
  await page.evaluate((n) => whep.ready(n), i);
  return i;
}

async function expectH264Frames(page: Page, i: number) {
  await expect
    .poll(() => page.evaluate((n) => whep.framesDecoded(n), i), { timeout: 15_000 })
    .toBeGreaterThan(3);
  const codec = await receivedCodec(page, i);
  expect(codec?.mimeType).toBe('video/H264');
  expect(codec?.fmtp).toContain('packetization-mode=1');
  expect(codec?.fmtp).toContain('profile-level-id=42e01f');
}

async function start(args: string[], program?: string[]): Promise<StreamerProcess> {
  return launchStreamer({
    signalingPort: await freePort(),
    mediaPort: await freeUdpPort(),
    args: [...small, '--codec', 'h264', ...args],
    readyWithinMs: 30_000,
    testMarks: !program,
    ...(program ? { program } : {}),
  });
}

test.describe('the display host streaming H.264', () => {
  let host: StreamerProcess;
  test.beforeAll(async () => {
    host = await start([], ['xterm', '-fa', 'DejaVu Sans Mono', '-fs', '14', '-bg', 'black', '-fg', 'white']);
  });
  test.afterAll(async () => {
    await host?.stop();
  });

  test('says which encoder it took, and Chromium decodes its frames, text that changes with typing', async ({
    page,
  }) => {
    // x264 here (no NVIDIA GPU); on a GPU machine the same test runs NVENC end to end.
    expect(host.output()).toMatch(
      /encoding H\.264 (in software \(libx264\)|on the NVIDIA GPU \(h264_nvenc\))/,
    );
    await viewerPage(page);
    const i = await connect(page, host.url);
    await expectH264Frames(page, i);
    // Typing changes the picture: bright pixels (light text on black) grow.
    const bright = async () =>
      (await readVideo(page, ({ data: d }) => {
        let n = 0;
        for (let p = 0; p < d.length; p += 4) if ((d[p] ?? 0) + (d[p + 1] ?? 0) + (d[p + 2] ?? 0) > 384) n++;
        return n;
      })) ?? 0;
    await expect.poll(() => page.evaluate(() => document.querySelector('video')?.videoWidth ?? 0)).toBe(640);
    const before = await bright();
    for (const key of 'echo hello h264 from a real terminal') {
      await page.evaluate((k) => {
        whep.send(0, { type: 'keydown', key: k, code: '' });
        whep.send(0, { type: 'keyup', key: k, code: '' });
      }, key);
    }
    await expect.poll(bright, { timeout: 10_000 }).toBeGreaterThan(before + 200);
  });

  test('a second viewer decodes at once from the replayed keyframe', async ({ page }) => {
    await viewerPage(page);
    await connect(page, host.url);
    const j = await connect(page, host.url);
    await expectH264Frames(page, j);
    await expect.poll(() => page.evaluate((n) => whep.firstFrameMs(n), j)).not.toBeNull();
    expect(await page.evaluate((n) => whep.firstFrameMs(n), j)).toBeLessThan(2000);
  });

  test('the answer names H.264 with its profile and packetization, and the playout-delay extension', async ({
    page,
  }) => {
    const answer = await page.evaluate(async (url) => {
      const pc = new RTCPeerConnection();
      pc.addTransceiver('video', { direction: 'recvonly' });
      pc.createDataChannel('input');
      const offer = await pc.createOffer();
      await pc.setLocalDescription(offer);
      const res = await fetch(`${url}/whep`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/sdp' },
        body: offer.sdp ?? '',
      });
      const text = await res.text();
      await fetch(new URL(res.headers.get('Location') ?? '', url), { method: 'DELETE' });
      pc.close();
      return { status: res.status, offer: offer.sdp ?? '', text };
    }, host.url);
    expect(answer.status, answer.text).toBe(201);
    const pt = /a=rtpmap:(\d+) H264\/90000/.exec(answer.text)?.[1];
    expect(pt).toBeDefined();
    expect(answer.text).toContain(`a=fmtp:${pt} profile-level-id=42e01f;packetization-mode=1`);
    expect(answer.text).not.toContain('VP8/90000');
    const delay = /a=extmap:(\d+) http:\/\/www.webrtc.org\/experiments\/rtp-hdrext\/playout-delay/;
    expect(delay.exec(answer.text)?.[1]).toBe(delay.exec(answer.offer)?.[1]);
  });

  test('a viewer that offers no H.264 gets a 400 that says why', async ({ page }) => {
    const answer = await page.evaluate(async (url) => {
      const pc = new RTCPeerConnection();
      const transceiver = pc.addTransceiver('video', { direction: 'recvonly' });
      const vp8 =
        RTCRtpReceiver.getCapabilities('video')?.codecs.filter((c) => c.mimeType === 'video/VP8') ?? [];
      transceiver.setCodecPreferences(vp8);
      pc.createDataChannel('input');
      await pc.setLocalDescription(await pc.createOffer());
      const res = await fetch(`${url}/whep`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/sdp' },
        body: pc.localDescription?.sdp ?? '',
      });
      pc.close();
      return { status: res.status, body: await res.text() };
    }, host.url);
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('This session streams H.264 video');
  });
});

test('the sample application streams H.264 too, its marks readable from the decoded frames', async ({
  page,
}) => {
  const app = await start([]);
  try {
    expect(app.output()).toMatch(/encoding H\.264 (in software \(libx264\)|on the NVIDIA GPU)/);
    await viewerPage(page);
    const i = await connect(page, app.url);
    await expectH264Frames(page, i);
    await expect.poll(() => page.evaluate((n) => whep.look(n)?.marks ?? null, i)).not.toBeNull();
    const ms = await page.evaluate(
      (n) => whep.inputToPhoton(n, { type: 'pointermove', x: 100, y: 100 }, 7),
      i,
    );
    expect(ms).toBeLessThan(1000);
  } finally {
    await app.stop();
  }
});

test('a profile that says codec: h264 streams H.264 through the service and the portal', async ({
  browser,
}) => {
  const stack = await startStack({
    catalog: `
applications:
  - id: terminal
    name: Terminal
    description: A real program, xterm.
    versions:
      - version: 1.0.0
        description: xterm.
        launch: { display: { command: [xterm, -fa, DejaVu Sans Mono, -fs, '14', -bg, black, -fg, white] } }
profiles:
  - id: small
    name: Small
    description: 640x360 in H.264.
    applications: [{ id: '*', versions: ['*'] }]
    settings: { width: 640, height: 360, max_width: 640, max_height: 360, codec: h264 }
`,
  });
  const page = await browser.newPage();
  try {
    await page.addInitScript(() => {
      const Native = window.RTCPeerConnection;
      const pcs: RTCPeerConnection[] = [];
      (window as unknown as { testPcs: RTCPeerConnection[] }).testPcs = pcs;
      window.RTCPeerConnection = function (...args: ConstructorParameters<typeof RTCPeerConnection>) {
        const pc = new Native(...args);
        pcs.push(pc);
        return pc;
      } as unknown as typeof RTCPeerConnection;
      window.RTCPeerConnection.prototype = Native.prototype;
    });
    await page.goto(`${stack.baseURL}/launch?app=terminal&profile=small`);
    await page.getByRole('button', { name: 'Review' }).click();
    await page.getByRole('button', { name: 'Launch' }).click();
    await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 30_000 });
    await expect(page.getByTestId('player-state')).toHaveText('Playing', { timeout: 30_000 });
    const count = await page.evaluate(() => (window as unknown as { testPcs: unknown[] }).testPcs.length);
    await expect.poll(() => receivedCodec(page, count - 1).then((c) => c?.mimeType)).toBe('video/H264');
  } finally {
    await page.close();
    await stack.stop();
  }
});
