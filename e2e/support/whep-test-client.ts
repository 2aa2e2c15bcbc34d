/**
 * A minimal WHEP viewer for tests and benchmarks, run inside a real Chromium page: RTCPeerConnection,
 * the `input` and `messages` channels, and reading the application's marks back from decoded frames
 * with streamer/sample/marks.ts. Also starts the application as a child process on free ports.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import ts from 'typescript';
import { freePort, freeUdpPort } from './ports';
import { launchStreamer, type StreamerProcess } from './streamer-process';

const root = path.resolve(import.meta.dirname, '../..');

/** The application started as a child process. */
export type { StreamerProcess };

/** Starts streamer/sample/main.ts on free ports (with its test marks unless told) and waits until /health says it is ready. */
export async function startStreamerProcess(
  extraArgs: string[] = [],
  options: { testMarks?: boolean } = {},
): Promise<StreamerProcess> {
  const signalingPort = await freePort();
  const mediaPort = await freeUdpPort();
  return launchStreamer({ signalingPort, mediaPort, args: extraArgs, readyWithinMs: 30_000, ...options });
}

/** streamer/sample/marks.ts as a script that defines `window.streamgateMarks` in a page. */
export function marksScript(): string {
  const source = readFileSync(path.join(root, 'streamer/sample/marks.ts'), 'utf8');
  const js = ts.transpileModule(source, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
  }).outputText;
  const body = js.replace(/^export /gm, '');
  return `(() => {\n${body}\nwindow.streamgateMarks = { decodeMarks, findPointer, POINTER_SIZE };\n})();`;
}

/**
 * The page side, serialised into the page: `window.whep`. Kept free of imports and outer names because
 * only its text reaches the browser.
 */
function pageClient(): void {
  type Marks = { frame: number; seq: number } | null;
  type Reader = {
    decodeMarks(image: ImageData): Marks;
    findPointer(image: ImageData): { x: number; y: number } | null;
  };
  interface Conn {
    pc: RTCPeerConnection;
    input: RTCDataChannel;
    messages: RTCDataChannel;
    video: HTMLVideoElement;
    location: string;
    received: { event_type: string; payload: Record<string, unknown> }[];
    postAt: number;
    firstFrameAt: number | null;
  }
  const conns: Conn[] = [];
  const reader = () => (window as unknown as { streamgateMarks: Reader }).streamgateMarks;
  const grab = (video: HTMLVideoElement) => {
    const canvas = document.createElement('canvas');
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    const ctx = canvas.getContext('2d', { willReadFrequently: true }) as CanvasRenderingContext2D;
    ctx.drawImage(video, 0, 0);
    return ctx.getImageData(0, 0, canvas.width, canvas.height);
  };
  const opened = (dc: RTCDataChannel) =>
    dc.readyState === 'open'
      ? Promise.resolve()
      : new Promise((r) => dc.addEventListener('open', r, { once: true }));
  const api = {
    async connect(base: string, watch = false): Promise<number> {
      const pc = new RTCPeerConnection();
      pc.addTransceiver('video', { direction: 'recvonly' });
      const input = pc.createDataChannel('input');
      const messages = pc.createDataChannel('messages');
      const video = document.createElement('video');
      video.muted = true;
      video.autoplay = true;
      video.playsInline = true;
      document.body.appendChild(video);
      const conn: Conn = {
        pc,
        input,
        messages,
        video,
        location: '',
        received: [],
        postAt: 0,
        firstFrameAt: null,
      };
      messages.onmessage = (e) => conn.received.push(JSON.parse(String(e.data)));
      pc.ontrack = (e) => {
        video.srcObject = e.streams[0] ?? new MediaStream([e.track]);
        video.requestVideoFrameCallback(() => (conn.firstFrameAt = performance.now()));
      };
      await pc.setLocalDescription(await pc.createOffer());
      conn.postAt = performance.now();
      const res = await fetch(`${base}/whep${watch ? '?mode=watch' : ''}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/sdp' },
        body: pc.localDescription?.sdp ?? '',
      });
      if (res.status !== 201) throw new Error(`POST /whep answered ${res.status}: ${await res.text()}`);
      conn.location = new URL(res.headers.get('Location') ?? '', base).href;
      await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() });
      conns.push(conn);
      return conns.length - 1;
    },
    async ready(i: number): Promise<void> {
      const c = conns[i] as Conn;
      await Promise.all([opened(c.input), opened(c.messages)]);
    },
    /** Milliseconds from POST /whep to the first decoded frame, once there is one. */
    firstFrameMs(i: number): number | null {
      const c = conns[i] as Conn;
      return c.firstFrameAt === null ? null : c.firstFrameAt - c.postAt;
    },
    async framesDecoded(i: number): Promise<number> {
      const stats = await (conns[i] as Conn).pc.getStats();
      let frames = 0;
      stats.forEach((s: { type: string; kind?: string; framesDecoded?: number }) => {
        if (s.type === 'inbound-rtp' && s.kind === 'video') frames = s.framesDecoded ?? 0;
      });
      return frames;
    },
    send(i: number, event: Record<string, unknown>): void {
      (conns[i] as Conn).input.send(JSON.stringify(event));
    },
    message(i: number, event: Record<string, unknown>): void {
      (conns[i] as Conn).messages.send(JSON.stringify(event));
    },
    /** Sends text as it is (malformed on purpose) on `input` or `messages`. */
    sendRaw(i: number, channel: 'input' | 'messages', text: string): void {
      (conns[i] as Conn)[channel].send(text);
    },
    received(i: number) {
      return (conns[i] as Conn).received;
    },
    /** Reads the current frame: its marks, the pointer square and the variance of its luma. */
    look(i: number) {
      const video = (conns[i] as Conn).video;
      if (video.videoWidth === 0) return null;
      const image = grab(video);
      let sum = 0;
      let sq = 0;
      const d = image.data;
      const n = d.length / 4;
      for (let p = 0; p < d.length; p += 4) {
        const y = 0.299 * (d[p] ?? 0) + 0.587 * (d[p + 1] ?? 0) + 0.114 * (d[p + 2] ?? 0);
        sum += y;
        sq += y * y;
      }
      return {
        width: image.width,
        height: image.height,
        marks: reader().decodeMarks(image),
        pointer: reader().findPointer(image),
        variance: sq / n - (sum / n) ** 2,
      };
    },
    /**
     * Sends `event` with `seq` and resolves with the milliseconds until a presented frame shows that seq
     * in its marks (requestVideoFrameCallback, so each decoded frame is looked at once).
     */
    inputToPhoton(i: number, event: Record<string, unknown>, seq: number, timeoutMs = 5000): Promise<number> {
      const c = conns[i] as Conn;
      const canvas = document.createElement('canvas');
      return new Promise((resolve, reject) => {
        const sentAt = performance.now();
        const timer = setTimeout(() => reject(new Error(`seq ${seq} never appeared`)), timeoutMs);
        const onFrame = () => {
          const w = c.video.videoWidth;
          const h = c.video.videoHeight;
          // Only the strip is read: cheaper than the whole frame, so the reading adds little latency.
          canvas.width = w;
          canvas.height = 32;
          const ctx = canvas.getContext('2d', { willReadFrequently: true }) as CanvasRenderingContext2D;
          ctx.drawImage(c.video, 0, h - 32, w, 32, 0, 0, w, 32);
          const marks = reader().decodeMarks(ctx.getImageData(0, 0, w, 32));
          if (marks && marks.seq === seq) {
            clearTimeout(timer);
            resolve(performance.now() - sentAt);
          } else {
            c.video.requestVideoFrameCallback(onFrame);
          }
        };
        c.video.requestVideoFrameCallback(onFrame);
        c.input.send(JSON.stringify({ ...event, seq }));
      });
    },
    /** Goes away without DELETE, as a closed tab does. */
    drop(i: number): void {
      const c = conns[i] as Conn;
      c.pc.close();
      c.video.remove();
    },
    async close(i: number): Promise<number> {
      const c = conns[i] as Conn;
      const res = await fetch(c.location, { method: 'DELETE' });
      c.pc.close();
      c.video.remove();
      return res.status;
    },
  };
  (window as unknown as { whep: typeof api }).whep = api;
}

/** The type of `window.whep` in the page, for `page.evaluate` callers. */
export interface WhepPageApi {
  connect(base: string, watch?: boolean): Promise<number>;
  ready(i: number): Promise<void>;
  firstFrameMs(i: number): number | null;
  framesDecoded(i: number): Promise<number>;
  send(i: number, event: Record<string, unknown>): void;
  message(i: number, event: Record<string, unknown>): void;
  sendRaw(i: number, channel: 'input' | 'messages', text: string): void;
  received(i: number): { event_type: string; payload: Record<string, unknown> }[];
  look(i: number): {
    width: number;
    height: number;
    marks: { frame: number; seq: number } | null;
    pointer: { x: number; y: number } | null;
    variance: number;
  } | null;
  inputToPhoton(i: number, event: Record<string, unknown>, seq: number, timeoutMs?: number): Promise<number>;
  drop(i: number): void;
  close(i: number): Promise<number>;
}

/** Puts `window.whep` and `window.streamgateMarks` into the page (call after each navigation). */
export async function installWhepClient(page: Page): Promise<void> {
  // esbuild (tsx) wraps named functions in __name(); the page has no such helper, so give it one.
  await page.addScriptTag({ content: 'window.__name = (f) => f;' });
  await page.addScriptTag({ content: marksScript() });
  await page.addScriptTag({ content: `(${pageClient.toString()})();` });
}
