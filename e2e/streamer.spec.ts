/**
 * The sample streaming application against a real headless Chromium over real WebRTC: WHEP on the
 * signaling port, every viewer on the one media port, input and messages over data channels, and the
 * picture read back from decoded frames.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import {
  installWhepClient,
  startStreamerProcess,
  type StreamerProcess,
  type WhepPageApi,
} from './support/whep-test-client.ts';

declare const whep: WhepPageApi;

/** Pids of the live (not zombie) processes whose parent is `ppid` and whose name is `name`. */
function children(ppid: number, name: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const [state, parent] = stat.slice(close + 2).split(' ');
      if (comm === name && Number(parent) === ppid && state !== 'Z') found.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

/** Whether `pid` is still a running (not zombie) process. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

const small = ['--width', '640', '--height', '360', '--max-width', '1280', '--max-height', '720'];

async function connect(page: Page, url: string, watch = false): Promise<number> {
  const i = await page.evaluate(([u, w]) => whep.connect(u, w), [url, watch] as const);
  await page.evaluate((n) => whep.ready(n), i);
  return i;
}

test.describe('one viewer', () => {
  let app: StreamerProcess;

  test.beforeAll(async () => {
    app = await startStreamerProcess([
      ...small,
      ...['--app-name', 'USD Viewer', '--app-version', '1.2.0', '--profile', 'default'],
    ]);
  });

  test.afterAll(async () => {
    await app?.stop();
  });

  test('decodes a live, non-blank picture that follows the pointer', async ({ page }) => {
    await installWhepClient(page);
    const i = await connect(page, app.url);
    await expect.poll(() => page.evaluate((n) => whep.framesDecoded(n), i)).toBeGreaterThan(10);
    const before = await page.evaluate((n) => whep.framesDecoded(n), i);
    await expect.poll(() => page.evaluate((n) => whep.framesDecoded(n), i)).toBeGreaterThan(before + 10);

    const first = await page.evaluate((n) => whep.look(n), i);
    expect(first?.width).toBe(640);
    expect(first?.height).toBe(360);
    expect(first?.variance).toBeGreaterThan(100);
    expect(first?.pointer).toBeNull();

    await page.evaluate((n) => whep.send(n, { type: 'pointermove', x: 320, y: 160, buttons: 0, seq: 7 }), i);
    await expect.poll(async () => (await page.evaluate((n) => whep.look(n), i))?.marks?.seq).toBe(7);
    const seen = await page.evaluate((n) => whep.look(n), i);
    expect(Math.abs((seen?.pointer?.x ?? 0) - 320)).toBeLessThanOrEqual(2);
    expect(Math.abs((seen?.pointer?.y ?? 0) - 160)).toBeLessThanOrEqual(2);

    // The frame counter in the marks keeps counting.
    const frame = seen?.marks?.frame ?? 0;
    await expect
      .poll(async () => (await page.evaluate((n) => whep.look(n), i))?.marks?.frame)
      .toBeGreaterThan(frame);
    expect(await page.evaluate((n) => whep.close(n), i)).toBe(204);
  });

  test('answers application messages over the messages channel', async ({ page }) => {
    await installWhepClient(page);
    const i = await connect(page, app.url);
    // Malformed messages on either channel are ignored, not answered and not fatal.
    for (const text of ['{"event_type":', 'null', '[]', '{"type":"pointermove","x":"a"}']) {
      await page.evaluate(([n, t]) => whep.sendRaw(n, 'messages', t), [i, text] as const);
      await page.evaluate(([n, t]) => whep.sendRaw(n, 'input', t), [i, text] as const);
    }
    const url = 'omniverse://localhost/Projects/stage.usd';
    await page.evaluate(
      ([n, u]) => whep.message(n, { event_type: 'openStageRequest', payload: { url: u } }),
      [i, url] as const,
    );
    await page.evaluate((n) => whep.message(n, { event_type: 'loadingStateQuery', payload: {} }), i);
    await page.evaluate((n) => whep.message(n, { event_type: 'noSuchEvent', payload: {} }), i);
    // The stream server's own `people` (who is here, protocol/people.ts) comes first; the application's answers follow.
    const answers = (n: number) => whep.received(n).filter((m) => m.event_type !== 'people');
    await expect.poll(() => page.evaluate(answers, i)).toHaveLength(3);
    const received = await page.evaluate(answers, i);
    expect(received[0]).toEqual({ event_type: 'openedStageResult', payload: { result: 'success', url } });
    expect(received[1]).toMatchObject({ event_type: 'loadingStateResponse', payload: { url } });
    expect(received[1]?.payload.loading_state).toEqual(expect.any(String));
    expect(received[2]?.event_type).toBe('error');
    expect(await page.evaluate((n) => whep.close(n), i)).toBe(204);
  });

  test('a watch-only viewer sees the stream but its input is ignored', async ({ page }) => {
    await installWhepClient(page);
    const watcher = await connect(page, app.url, true);
    await expect.poll(() => page.evaluate((n) => whep.framesDecoded(n), watcher)).toBeGreaterThan(5);
    await page.evaluate(
      (n) => whep.send(n, { type: 'pointermove', x: 100, y: 100, buttons: 0, seq: 99 }),
      watcher,
    );
    // A round trip on the same connection after the input: by its answer the input has been handled.
    await page.evaluate((n) => whep.message(n, { event_type: 'loadingStateQuery', payload: {} }), watcher);
    await expect
      .poll(() =>
        page.evaluate((n) => whep.received(n).filter((m) => m.event_type !== 'people').length, watcher),
      )
      .toBe(1);
    const now = (await page.evaluate((n) => whep.look(n), watcher))?.marks?.frame ?? 0;
    await expect
      .poll(async () => (await page.evaluate((n) => whep.look(n), watcher))?.marks?.frame)
      .toBeGreaterThan(now + 3);
    const look = await page.evaluate((n) => whep.look(n), watcher);
    expect(look?.marks?.seq).not.toBe(99);
    expect(look?.pointer).not.toEqual({ x: 100, y: 100 });
    expect(await page.evaluate((n) => whep.close(n), watcher)).toBe(204);
  });

  test('notices a viewer that leaves without DELETE', async ({ page }) => {
    await installWhepClient(page);
    const viewers = async () => (await (await fetch(`${app.url}/health`)).json()).viewers;
    const i = await connect(page, app.url);
    await expect.poll(() => page.evaluate((n) => whep.framesDecoded(n), i)).toBeGreaterThan(0);
    expect(await viewers()).toBe(1);
    await page.evaluate((n) => whep.drop(n), i);
    await expect.poll(viewers, { timeout: 30_000 }).toBe(0);
  });

  test('changes the stream size on resize, within the profile maximum', async ({ page }) => {
    await installWhepClient(page);
    const i = await connect(page, app.url);
    const width = async () => (await page.evaluate((n) => whep.look(n), i))?.width;
    await page.evaluate((n) => whep.send(n, { type: 'resize', width: 577, height: 325, seq: 11 }), i);
    await expect.poll(width, { timeout: 15_000 }).toBe(576);
    const look = await page.evaluate((n) => whep.look(n), i);
    expect(look?.height).toBe(324);
    expect(look?.marks?.seq).toBe(11);
    const health = await fetch(`${app.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ready', width: 576, height: 324 });
    // Past the maximum (1280x720 here) the size is clamped to it.
    await page.evaluate((n) => whep.send(n, { type: 'resize', width: 4000, height: 4000 }), i);
    await expect.poll(width, { timeout: 15_000 }).toBe(1280);
    expect((await page.evaluate((n) => whep.look(n), i))?.height).toBe(720);
    await page.evaluate((n) => whep.send(n, { type: 'resize', width: 640, height: 360 }), i);
    await expect.poll(width, { timeout: 15_000 }).toBe(640);
    expect(await page.evaluate((n) => whep.close(n), i)).toBe(204);
  });
});

test('four viewers at once on the one media port each decode frames', async ({ page }) => {
  const app = await startStreamerProcess(small);
  try {
    await installWhepClient(page);
    const viewers = [];
    for (let k = 0; k < 4; k++) viewers.push(await connect(page, app.url));
    for (const i of viewers) {
      await expect.poll(() => page.evaluate((n) => whep.framesDecoded(n), i)).toBeGreaterThan(10);
    }
    const health = await (await fetch(`${app.url}/health`)).json();
    expect(health.viewers).toBe(4);
    for (const i of viewers) expect(await page.evaluate((n) => whep.close(n), i)).toBe(204);
  } finally {
    await app.stop();
  }
});

test('draws no marks strip unless asked (--test-marks), and still shows the pointer', async ({ page }) => {
  const app = await startStreamerProcess(small, { testMarks: false });
  try {
    await installWhepClient(page);
    const i = await connect(page, app.url);
    const look = () => page.evaluate((n) => whep.look(n), i);
    await expect.poll(() => page.evaluate((n) => whep.framesDecoded(n), i)).toBeGreaterThan(10);
    await page.evaluate((n) => whep.send(n, { type: 'pointermove', x: 320, y: 160, buttons: 0, seq: 7 }), i);
    await expect.poll(async () => (await look())?.pointer?.x ?? 0).toBeGreaterThan(310);
    // Where the strip would be, every cell reads dark: neither the frame counter nor the seq is drawn.
    expect((await look())?.marks).toEqual({ frame: 0, seq: 0 });
    expect(await page.evaluate((n) => whep.close(n), i)).toBe(204);
  } finally {
    await app.stop();
  }
});

test.describe('the encoder process', () => {
  test('is restarted when it dies, and the viewer keeps getting frames', async ({ page }) => {
    const app = await startStreamerProcess(small);
    try {
      await installWhepClient(page);
      const i = await connect(page, app.url);
      await expect.poll(() => page.evaluate((n) => whep.framesDecoded(n), i)).toBeGreaterThan(5);
      const [ffmpeg] = children(app.process.pid ?? 0, 'ffmpeg');
      expect(ffmpeg).toBeGreaterThan(0);
      process.kill(ffmpeg as number, 'SIGKILL');
      await expect
        .poll(() => children(app.process.pid ?? 0, 'ffmpeg').filter((p) => p !== ffmpeg).length)
        .toBe(1);
      const after = await page.evaluate((n) => whep.framesDecoded(n), i);
      await expect.poll(() => page.evaluate((n) => whep.framesDecoded(n), i)).toBeGreaterThan(after + 10);
    } finally {
      await app.stop();
    }
  });

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGKILL'] as const) {
    test(`does not outlive the application killed with ${signal}`, async () => {
      const app = await startStreamerProcess(small);
      let ffmpeg: number[] = [];
      try {
        ffmpeg = children(app.process.pid ?? 0, 'ffmpeg');
        expect(ffmpeg).toHaveLength(1);
        await app.stop(signal);
        await expect.poll(() => ffmpeg.filter(alive)).toEqual([]);
      } finally {
        await app.stop('SIGKILL');
        for (const pid of ffmpeg.filter(alive)) process.kill(pid, 'SIGKILL');
      }
    });
  }
});
