import { describe, expect, it } from 'vitest';
import { parseTcpdump, WireLog } from './sound-marks';

const APP = 50_000;
const BROWSER = 40_000;
const OPUS = 111;

/** tcpdump's `-tt -x` lines of one IPv4 UDP datagram whose payload starts with `payload`. */
function dump(at: number, from: number, to: number, payload: number[]): string {
  const bytes = [...new Array<number>(28).fill(0), ...payload];
  const lines = [`${at.toFixed(6)} IP 127.0.0.1.${from} > 127.0.0.1.${to}: UDP, length ${payload.length}`];
  for (let offset = 0; offset < bytes.length; offset += 16) {
    const words: string[] = [];
    const row = bytes.slice(offset, offset + 16);
    for (let i = 0; i < row.length; i += 2) {
      words.push(
        row
          .slice(i, i + 2)
          .map((b) => b.toString(16).padStart(2, '0'))
          .join(''),
      );
    }
    lines.push(`\t0x${offset.toString(16).padStart(4, '0')}:  ${words.join(' ')}`);
  }
  return lines.join('\n') + '\n';
}

/** The first 8 bytes of an RTP packet of payload type `pt` with timestamp `ts`. */
function rtp(pt: number, ts: number, marker = false): number[] {
  return [
    0x80,
    (marker ? 0x80 : 0) | pt,
    0,
    1,
    (ts >>> 24) & 0xff,
    (ts >>> 16) & 0xff,
    (ts >>> 8) & 0xff,
    ts & 0xff,
  ];
}

/** A log with the page's time origin at 1,000 s since the epoch: page time t ms is epoch 1000 + t / 1000 s. */
function logOf(text: string): WireLog {
  const log = new WireLog(APP, OPUS, 1_000_000);
  // Cut anywhere: the unfinished line comes back with the rest.
  const rest = parseTcpdump(text.slice(0, 100), log.datagrams);
  parseTcpdump(rest + text.slice(100), log.datagrams);
  return log;
}

describe('WireLog', () => {
  it("splits a key's time at its datagram and at the sound's first packet", () => {
    const log = logOf(
      // A keep-alive before the key, video, the key's DTLS record, then the sound.
      dump(1000.0095, BROWSER, APP, [23, 0xfe, 0xfd]) +
        dump(1000.0105, APP, BROWSER, rtp(96, 1)) +
        dump(1000.0112, BROWSER, APP, [23, 0xfe, 0xfd]) +
        dump(1000.0114, APP, BROWSER, rtp(96, 2)) +
        dump(1000.0125, APP, BROWSER, rtp(OPUS, 480, true)),
    );
    const mark = log.after(10);
    expect(mark!.input).toBeCloseTo(11.2, 3);
    expect(mark!.audio).toBeCloseTo(12.5, 3);
    expect(mark!.marker).toBe(true);
    expect(log.after(13)).toBeNull();
  });

  it("measures each talkspurt's spread of departures against timestamps", () => {
    const log = logOf(
      // 10 ms apart by their timestamps; the third leaves 4 ms late, the fourth 1 ms early.
      dump(1001.0, APP, BROWSER, rtp(OPUS, 0, true)) +
        dump(1001.01, APP, BROWSER, rtp(OPUS, 480)) +
        dump(1001.024, APP, BROWSER, rtp(OPUS, 960)) +
        dump(1001.029, APP, BROWSER, rtp(OPUS, 1440)) +
        // Video between them counts for nothing; a new talkspurt starts its own spread.
        dump(1001.03, APP, BROWSER, rtp(96, 5)) +
        dump(1002.0, APP, BROWSER, rtp(OPUS, 48_000, true)) +
        dump(1002.01, APP, BROWSER, rtp(OPUS, 48_480)),
    );
    const [first, second] = log.sendSpread();
    expect(first).toBeCloseTo(5, 3);
    expect(second).toBeCloseTo(0, 3);
  });
});
