/**
 * What sound costs, for bench/sound.ts: the processes of a session under the service, their CPU, and the audio the
 * viewer's page received (bitrate, packets, jitter buffer).
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { descendantsOf } from '../test-support/processes';
import { cpuSeconds } from './stats';
import type { Win } from './sound-probe';

export const CPU_TARGET = 0.05;
export const BITRATE_TARGET = 64;
export const WINDOW_MS = 10_000;
export const verdict = (ok: boolean) => (ok ? 'met' : 'missed');
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every process under `root` (the service), with its command line. */
export function descendants(root: number): { pid: number; cmd: string[] }[] {
  return descendantsOf(root).flatMap((pid) => {
    try {
      return [{ pid, cmd: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0') }];
    } catch {
      return []; // gone meanwhile
    }
  });
}

export interface Received {
  bytes: number;
  packets: number;
  /** Seconds that emitted samples spent in the jitter buffer, summed, and how many were emitted. */
  jitterDelay: number;
  emitted: number;
  /** Seconds of the jitter buffer's target (NetEq's) and its minimum, summed over the same samples. */
  targetDelay: number;
  minimumDelay: number;
}

/** The page's audio received so far (inbound-rtp of kind audio). */
export function audioReceived(page: Page): Promise<Received> {
  return page.evaluate(async () => {
    const sum = { bytes: 0, packets: 0, jitterDelay: 0, emitted: 0, targetDelay: 0, minimumDelay: 0 };
    for (const pc of (window as unknown as Win).benchPcs) {
      (await pc.getStats()).forEach(
        (s: {
          type: string;
          kind?: string;
          bytesReceived?: number;
          packetsReceived?: number;
          jitterBufferDelay?: number;
          jitterBufferEmittedCount?: number;
          jitterBufferTargetDelay?: number;
          jitterBufferMinimumDelay?: number;
        }) => {
          if (s.type === 'inbound-rtp' && s.kind === 'audio') {
            sum.bytes += s.bytesReceived ?? 0;
            sum.packets += s.packetsReceived ?? 0;
            sum.jitterDelay += s.jitterBufferDelay ?? 0;
            sum.emitted += s.jitterBufferEmittedCount ?? 0;
            sum.targetDelay += s.jitterBufferTargetDelay ?? 0;
            sum.minimumDelay += s.jitterBufferMinimumDelay ?? 0;
          }
        },
      );
    }
    return sum;
  });
}

/** The audio jitter buffer's mean delay since `before`, as a note for a figure. */
export async function jitterNote(page: Page, before: Received): Promise<string> {
  const after = await audioReceived(page);
  const mean = (key: 'jitterDelay' | 'targetDelay' | 'minimumDelay') =>
    (((after[key] - before[key]) / Math.max(1, after.emitted - before.emitted)) * 1000).toFixed(1);
  return `the sound's mean jitter buffer delay meanwhile ${mean('jitterDelay')} ms (its target ${mean('targetDelay')}, minimum ${mean('minimumDelay')})`;
}

/** CPU of `pids` (a fraction of one core, each and together) and the audio bitrate received over WINDOW_MS. */
export async function cost(page: Page, pids: number[]) {
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

export function printCost(
  what: string,
  c: Awaited<ReturnType<typeof cost>>,
  cpuTarget: boolean,
  names?: string[],
) {
  const parts = names ? ` (${names.map((n, i) => `${n} ${c.each[i]!.toFixed(3)}`).join(', ')})` : '';
  const cpu = `${c.core.toFixed(3)} core${parts}`;
  console.log(
    `  ${what}: ${cpuTarget ? `${cpu} (target <= ${CPU_TARGET}: ${verdict(c.core <= CPU_TARGET)})` : cpu}; audio ${c.payload.toFixed(1)} kbit/s payload, ${c.withHeaders.toFixed(1)} kbit/s with RTP headers, ${c.packets.toFixed(0)} packets/s (target <= ${BITRATE_TARGET} kbit/s: ${verdict(c.withHeaders <= BITRATE_TARGET)})`,
  );
}
