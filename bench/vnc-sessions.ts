/**
 * The usual way to put an X11 program in a browser, VNC, as many sessions at once on one machine: per session an
 * Xvfb, the program (an xterm filling the screen, as the display host makes its program's window), x11vnc with the
 * low-latency flags of the noVNC peer (../shared/peers/novnc.mjs, whose sweep chose them), and websockify serving
 * noVNC's page. The peer itself runs one session; this is the smallest runner that runs several.
 *
 * A session is watched either by noVNC in a browser (its `page` URL) or, for a busy one, by `watchRfb`: a client of
 * a few lines that asks for updates as noVNC does (the same encodings, quality and compression) and throws them
 * away undecoded, as the Node WHEP viewers of the Streamgate side do.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../test-support/ports';
import { stopChild } from '../streamer/runtime/lifecycle';

/** x11vnc's flags: the peer's base settings and its tuned (lowest latency) profile. */
const X11VNC_FLAGS = [
  ...['-localhost', '-nopw', '-forever', '-shared', '-ncache', '0'],
  ...['-defer', '0', '-wait', '5', '-nonap', '-nowait_bog', '-noscr', '-noxdamage'],
];
/** noVNC's defaults, which the peer keeps. */
const QUALITY = 6;
const COMPRESSION = 2;

export interface VncSessionOptions {
  width: number;
  height: number;
  /** xterm's arguments (font, colours, `-e` and its command); it is started maximized. */
  xterm: string[];
  /** Put before every command (`taskset -c 1`): where the session's processes may run. */
  prefix: string[];
}

export interface VncSession {
  /** noVNC's page, connecting at once to this session. */
  page: string;
  wsPort: number;
  /** The processes started (each the root of its own tree: xterm's shell is below xterm). */
  pids(): number[];
  stop(): Promise<void>;
}

/** Until `port` on 127.0.0.1 accepts a connection; throws after `ms`. */
async function listening(port: number, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await sleep(50);
  }
  throw new Error(`Nothing listens on port ${port} after ${ms} ms: see the VNC session's processes.`);
}

/** Starts one session; on a failure on the way, what was started is stopped again. */
export async function startVncSession(options: VncSessionOptions): Promise<VncSession> {
  const children: ChildProcess[] = [];
  const run = (command: string[], env: NodeJS.ProcessEnv = {}, extraFd = false) => {
    const [file, ...args] = [...options.prefix, ...command];
    const child = spawn(file as string, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'ignore', ...(extraFd ? (['pipe'] as const) : [])],
    });
    children.push(child);
    return child;
  };
  const stop = async () => {
    for (const child of children.reverse()) await stopChild(child, 3_000);
  };
  try {
    const geometry = `${options.width}x${options.height}x24`;
    const xvfb = run(['Xvfb', '-displayfd', '3', '-screen', '0', geometry, '-nolisten', 'tcp'], {}, true);
    const display = await new Promise<string>((resolve, reject) => {
      let text = '';
      const timer = setTimeout(() => reject(new Error('Xvfb named no display within 10 s.')), 10_000);
      xvfb.stdio[3]?.on('data', (data: Buffer) => {
        text += data.toString();
        const number = /(\d+)\n/.exec(text)?.[1];
        if (number === undefined) return;
        clearTimeout(timer);
        resolve(`:${number}`);
      });
      xvfb.once('exit', (code) => reject(new Error(`Xvfb ended (${code}) before it named a display.`)));
    });
    run(['xterm', '-maximized', ...options.xterm], { DISPLAY: display });
    const vncPort = await freePort();
    run(['x11vnc', '-display', display, '-rfbport', String(vncPort), ...X11VNC_FLAGS]);
    await listening(vncPort);
    const wsPort = await freePort();
    run(['websockify', '--web', '/usr/share/novnc', `127.0.0.1:${wsPort}`, `127.0.0.1:${vncPort}`]);
    await listening(wsPort);
    const query = `autoconnect=1&host=127.0.0.1&port=${wsPort}&resize=off&reconnect=0&quality=${QUALITY}&compression=${COMPRESSION}`;
    return {
      page: `http://127.0.0.1:${wsPort}/vnc.html?${query}&logging=warn`,
      wsPort,
      pids: () => children.map((child) => child.pid).filter((pid): pid is number => pid !== undefined),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** What a watcher saw: the bytes of RFB it received. */
export interface RfbWatcher {
  bytes(): number;
  close(): void;
}

/** RFB's encodings in noVNC's order (core/rfb.js `_sendEncodings`, a 24-bit screen), without its extensions. */
const ENCODINGS = [1, 7, -260, 5, 2, 0, -32 + QUALITY, -256 + COMPRESSION, -223, -224];

/** One masked binary WebSocket frame (a client's frames are masked; these are all under 126 bytes). */
function frame(payload: Buffer): Buffer {
  const mask = randomBytes(4);
  const masked = Buffer.from(payload.map((byte, i) => byte ^ (mask[i % 4] as number)));
  return Buffer.concat([Buffer.from([0x82, 0x80 | payload.length]), mask, masked]);
}

/**
 * Watches session `wsPort` through its websockify as noVNC would, without drawing: the RFB handshake, noVNC's pixel
 * format and encodings, then an incremental update request once an update's bytes arrive (at most one each 16 ms:
 * noVNC asks again once it has drawn an update) and at least every 100 ms.
 */
export async function watchRfb(wsPort: number): Promise<RfbWatcher> {
  const socket = net.connect(wsPort, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.setNoDelay(true);
  const key = randomBytes(16).toString('base64');
  socket.write(
    `GET / HTTP/1.1\r\nHost: 127.0.0.1:${wsPort}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: binary\r\n\r\n`,
  );
  const send = (payload: number[] | Buffer) => socket.write(frame(Buffer.from(payload)));
  let raw = Buffer.alloc(0);
  let upgraded = false;
  let rfb = Buffer.alloc(0);
  let received = 0;
  let stage: 'version' | 'security' | 'result' | 'init' | 'updates' = 'version';
  let width = 0;
  let height = 0;
  let lastRequest = 0;
  let soon: NodeJS.Timeout | undefined;
  const request = (incremental: boolean) => {
    clearTimeout(soon);
    soon = undefined;
    lastRequest = performance.now();
    const body = Buffer.alloc(10);
    body.writeUInt8(3, 0);
    body.writeUInt8(incremental ? 1 : 0, 1);
    body.writeUInt16BE(width, 6);
    body.writeUInt16BE(height, 8);
    send(body);
  };
  const ready = new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    const handshake = () => {
      if (stage === 'version' && rfb.length >= 12) {
        send(Buffer.from('RFB 003.008\n'));
        rfb = rfb.subarray(12);
        stage = 'security';
      }
      if (stage === 'security' && rfb.length >= 1 && rfb.length >= 1 + (rfb[0] as number)) {
        if (!rfb.subarray(1, 1 + (rfb[0] as number)).includes(1))
          return reject(new Error('x11vnc offered no "None" security type.'));
        send([1]);
        rfb = rfb.subarray(1 + (rfb[0] as number));
        stage = 'result';
      }
      if (stage === 'result' && rfb.length >= 4) {
        rfb = rfb.subarray(4);
        send([1]);
        stage = 'init';
      }
      if (stage === 'init' && rfb.length >= 24 && rfb.length >= 24 + rfb.readUInt32BE(20)) {
        width = rfb.readUInt16BE(0);
        height = rfb.readUInt16BE(2);
        rfb = Buffer.alloc(0);
        // noVNC's pixel format: 32 bits, depth 24, true colour, red at 0, green at 8, blue at 16.
        send([0, 0, 0, 0, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 0, 8, 16, 0, 0, 0]);
        const encodings = Buffer.alloc(4 + 4 * ENCODINGS.length);
        encodings.writeUInt8(2, 0);
        encodings.writeUInt16BE(ENCODINGS.length, 2);
        ENCODINGS.forEach((encoding, i) => encodings.writeInt32BE(encoding, 4 + 4 * i));
        send(encodings);
        request(false);
        stage = 'updates';
        resolve();
      }
    };
    socket.on('data', (data: Buffer) => {
      raw = Buffer.concat([raw, data]);
      if (!upgraded) {
        const end = raw.indexOf('\r\n\r\n');
        if (end < 0) return;
        if (!/^HTTP\/1\.1 101/.test(raw.subarray(0, end).toString()))
          return reject(new Error(`websockify refused the WebSocket: ${raw.subarray(0, end).toString()}`));
        upgraded = true;
        raw = raw.subarray(end + 4);
      }
      // The server's frames: unmasked, a 7-bit length or a 16- or 64-bit one after it.
      for (;;) {
        if (raw.length < 2) break;
        let length = (raw[1] as number) & 0x7f;
        let at = 2;
        if (length === 126) {
          if (raw.length < 4) break;
          length = raw.readUInt16BE(2);
          at = 4;
        } else if (length === 127) {
          if (raw.length < 10) break;
          length = Number(raw.readBigUInt64BE(2));
          at = 10;
        }
        if (raw.length < at + length) break;
        const payload = raw.subarray(at, at + length);
        raw = raw.subarray(at + length);
        received += payload.length;
        if (stage === 'updates') {
          soon ??= setTimeout(() => request(true), Math.max(0, 16 - (performance.now() - lastRequest)));
        } else {
          rfb = Buffer.concat([rfb, payload]);
          handshake();
        }
      }
    });
  });
  await ready;
  const timer = setInterval(() => {
    if (performance.now() - lastRequest >= 100) request(true);
  }, 100);
  return {
    bytes: () => received,
    close: () => {
      clearInterval(timer);
      clearTimeout(soon);
      socket.destroy();
    },
  };
}
