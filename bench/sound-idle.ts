/**
 * `npm run bench -- sound-idle`: what sound costs a display session that nobody watches and that is silent, the
 * commonest state of a session's sound. The display host (streamer/display/main.ts, an xterm at 1280x720) runs with
 * sound and without (`--no-audio`), by turns; each is left 5 s to settle, then the CPU of the host alone (its sound
 * is read from `parec` through a pipe, cut into frames and checked for silence) is read over 10 s. Prints the
 * figures; asserts none.
 * Usage: npx tsx bench/sound-idle.ts [--runs 3]
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { launchStreamer } from '../test-support/streamer-process';
import { cpuSeconds, median } from './stats';

const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const runs = Math.max(1, Number(runsAt >= 0 ? args[runsAt + 1] : 3) || 3);
const WINDOW_S = 10;

/** The host's CPU in cores over the window, with sound or without. */
async function hostCore(sound: boolean): Promise<number> {
  const host = await launchStreamer({
    args: ['--width', '1280', '--height', '720', ...(sound ? [] : ['--no-audio'])],
    readyWithinMs: 60_000,
    testMarks: false,
    program: ['xterm'],
  });
  try {
    const pid = host.process.pid ?? 0;
    await sleep(5_000);
    const before = cpuSeconds(pid);
    const at = performance.now();
    await sleep(WINDOW_S * 1000);
    return (cpuSeconds(pid) - before) / ((performance.now() - at) / 1000);
  } finally {
    await host.stop();
  }
}

async function main(): Promise<void> {
  const withSound: number[] = [];
  const without: number[] = [];
  for (let i = 0; i < runs; i++) {
    withSound.push(await hostCore(true));
    without.push(await hostCore(false));
    console.log(
      `run ${i + 1}: display host, silent and unwatched, ${WINDOW_S} s: with sound ${withSound.at(-1)?.toFixed(3)} core, without ${without.at(-1)?.toFixed(3)}`,
    );
  }
  const cost = median(withSound) - median(without);
  console.log(
    `what sound costs a silent display host (median of ${runs}): ${cost.toFixed(3)} core (with ${median(withSound).toFixed(3)}, without ${median(without).toFixed(3)})`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
