/**
 * Timing marks on the wire for bench/sound.ts `--marks`: tcpdump on the loopback interface sees, for the viewer's
 * session, each datagram the browser sends the application (DTLS application data: the input channel's key) and
 * each audio RTP packet the application sends the browser (SRTP leaves the RTP header in the clear: its payload
 * type and marker bit). A key's time then splits into the browser's part (key to its datagram), the application's
 * (that datagram to the first audio packet of the sound) and the receiver's (that packet to the onset the page
 * hears: the jitter buffer, decoding and Web Audio). Nothing runs in the page or the application, so the marks do
 * not change what they measure. Needs tcpdump and the right to capture (root, or CAP_NET_RAW).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Page } from 'playwright-core';
import type { Win } from './sound-probe';

export interface Datagram {
  /** Seconds since the epoch, as tcpdump stamps it. */
  at: number;
  from: number;
  to: number;
  /** The first bytes of the UDP payload. */
  head: number[];
}

/** DTLS record type of application data (RFC 6347): what a data channel's message travels in. */
const DTLS_APPLICATION_DATA = 23;

/** The application's media port and the audio payload type, from the answer the page applied. */
async function sessionWire(page: Page): Promise<{ port: number; audioPt: number }> {
  const sdp = await page.evaluate(
    () => (window as unknown as Win).benchPcs.at(-1)?.remoteDescription?.sdp ?? '',
  );
  const port = Number(/a=candidate:\S+ \d+ udp \d+ \S+ (\d+) typ/i.exec(sdp)?.[1]);
  const audioPt = Number(/m=audio \d+ \S+ (\d+)/.exec(sdp)?.[1]);
  if (!port || !audioPt) throw new Error('The answer names no UDP candidate or no audio: no marks to take.');
  return { port, audioPt };
}

/**
 * tcpdump's `-tt -x` text, one datagram per header line and its hex lines (IPv4: 20 + 8 bytes of headers), into
 * `into`; returns the unfinished last line, to be given again with the text that follows it.
 */
export function parseTcpdump(text: string, into: Datagram[]): string {
  const lines = text.split('\n');
  const rest = lines.pop() ?? '';
  for (const line of lines) {
    const header = /^(\d+\.\d+) IP [\d.]+\.(\d+) > [\d.]+\.(\d+): UDP/.exec(line);
    if (header) {
      into.push({ at: Number(header[1]), from: Number(header[2]), to: Number(header[3]), head: [] });
      continue;
    }
    const hex = /^\s+0x([0-9a-f]{4}):\s+([0-9a-f ]+)/.exec(line);
    const last = into.at(-1);
    if (!hex || !last) continue;
    const offset = parseInt(hex[1]!, 16);
    const bytes = hex[2]!.replaceAll(' ', '').match(/../g) ?? [];
    bytes.forEach((b, i) => {
      if (offset + i >= 28) last.head.push(parseInt(b, 16));
    });
  }
  return rest;
}

/** The datagrams of one session's media port, and what they say about each key. */
export class WireLog {
  readonly datagrams: Datagram[] = [];

  constructor(
    /** The application's media port. */
    private readonly port: number,
    private readonly audioPt: number,
    /** The page's time origin, in ms since the epoch: page times to the wire's. */
    private readonly origin: number,
  ) {}

  /**
   * For a key at the page's time `stamp`: the first datagram of application data from the browser to the
   * application after it, and the first audio packet the application sent after that, both on the page's clock.
   */
  after(stamp: number): { input: number; audio: number; marker: boolean } | null {
    const epoch = (this.origin + stamp) / 1000;
    const input = this.datagrams.find(
      (d) => d.at >= epoch && d.to === this.port && d.head[0] === DTLS_APPLICATION_DATA,
    );
    if (!input) return null;
    const audio = this.datagrams.find(
      (d) =>
        d.at >= input.at &&
        d.from === this.port &&
        d.head[0] !== undefined &&
        d.head[0] >> 6 === 2 &&
        ((d.head[1] ?? 0) & 0x7f) === this.audioPt,
    );
    if (!audio) return null;
    const page = (at: number) => at * 1000 - this.origin;
    return { input: page(input.at), audio: page(audio.at), marker: ((audio.head[1] ?? 0) & 0x80) !== 0 };
  }

  /**
   * How unevenly the application sent its sound: for each talkspurt (a marker packet and those after it), the
   * spread (largest minus smallest) of each packet's departure against its timestamp, in ms. A receiver's jitter
   * buffer holds about this much to play the talkspurt without a gap.
   */
  sendSpread(): number[] {
    const spreads: number[] = [];
    let first: { at: number; ts: number } | null = null;
    let low = 0;
    let high = 0;
    const close = () => {
      if (first) spreads.push(high - low);
    };
    for (const d of this.datagrams) {
      if (d.from !== this.port || d.head.length < 8 || d.head[0]! >> 6 !== 2) continue;
      if ((d.head[1]! & 0x7f) !== this.audioPt) continue;
      const ts = Buffer.from(d.head.slice(4, 8)).readUInt32BE(0);
      if (d.head[1]! & 0x80 || !first) {
        close();
        first = { at: d.at, ts };
        low = high = 0;
        continue;
      }
      const late = (d.at - first.at) * 1000 - ((ts - first.ts) >>> 0) / 48;
      low = Math.min(low, late);
      high = Math.max(high, late);
    }
    close();
    return spreads;
  }
}

/** A WireLog that tcpdump feeds, from `start` to `stop`. */
export class WireMarks extends WireLog {
  private constructor(
    private readonly tcpdump: ChildProcess,
    port: number,
    audioPt: number,
    origin: number,
  ) {
    super(port, audioPt, origin);
  }

  /** Starts capturing the session's datagrams; resolves once tcpdump listens. */
  static async start(page: Page): Promise<WireMarks> {
    const { port, audioPt } = await sessionWire(page);
    const origin = await page.evaluate(() => performance.timeOrigin);
    const tcpdump = spawn(
      'tcpdump',
      ['-i', 'lo', '-n', '-tt', '-l', '-x', '-s', '64', 'udp', 'port', String(port)],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const marks = new WireMarks(tcpdump, port, audioPt, origin);
    let rest = '';
    tcpdump.stdout!.setEncoding('utf8');
    tcpdump.stdout!.on('data', (chunk: string) => (rest = parseTcpdump(rest + chunk, marks.datagrams)));
    await new Promise<void>((resolve, reject) => {
      tcpdump.once('error', reject);
      tcpdump.once('exit', (code) => reject(new Error(`tcpdump ended (code ${code}) before it listened.`)));
      tcpdump.stderr!.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('listening on')) resolve();
      });
    });
    return marks;
  }

  async stop(): Promise<void> {
    if (this.tcpdump.exitCode !== null || this.tcpdump.signalCode !== null) return;
    const exited = new Promise((resolve) => this.tcpdump.once('exit', resolve));
    this.tcpdump.kill('SIGTERM');
    await exited;
  }
}
