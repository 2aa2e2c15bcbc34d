/**
 * `npm run bench -- encoder-rest`: what a display host's encoder at rest costs the next viewer. An xterm's display
 * host (1280x720, `--encoder-rest-s 2`) is opened by a WHEP viewer (node-datachannel) again and again, by turns
 * while its encoder still runs (opened 0.5 s after the last viewer left) and once it rests (4 s after): from the
 * viewer's POST to its first video packet. Prints the medians; asserts nothing.
 * Usage: npx tsx bench/encoder-rest.ts [--runs 5]
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { launchStreamer } from '../test-support/streamer-process';
import { openViewer } from '../test-support/whep-viewer';
import { median } from './stats';

const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const runs = Math.max(1, Number(runsAt >= 0 ? args[runsAt + 1] : 5) || 5);

async function main(): Promise<void> {
  const host = await launchStreamer({
    args: ['--width', '1280', '--height', '720', '--no-audio', '--encoder-rest-s', '2'],
    readyWithinMs: 60_000,
    testMarks: false,
    program: ['xterm'],
  });
  /** ms from the viewer's offer to its first video packet. */
  const firstPacket = async (): Promise<number> => {
    const at = performance.now();
    const viewer = await openViewer(host.url);
    try {
      while (viewer.videoPackets() === 0) {
        if (performance.now() - at > 20_000) throw new Error('no video within 20 s');
        await sleep(2);
      }
      return performance.now() - at;
    } finally {
      await viewer.close();
    }
  };
  const awake: number[] = [];
  const resting: number[] = [];
  try {
    await firstPacket(); // warm-up: the first start reads its files from disk
    for (let i = 0; i < runs; i++) {
      await sleep(500);
      awake.push(await firstPacket());
      await sleep(4_000);
      resting.push(await firstPacket());
      console.log(
        `run ${i + 1}: awake ${awake.at(-1)?.toFixed(0)} ms, at rest ${resting.at(-1)?.toFixed(0)} ms`,
      );
    }
  } finally {
    await host.stop();
  }
  console.log(
    `a viewer's offer to its first video packet (median of ${runs}): encoder awake ${median(awake).toFixed(0)} ms, ` +
      `at rest ${median(resting).toFixed(0)} ms (+${(median(resting) - median(awake)).toFixed(0)} ms to wake it)`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
