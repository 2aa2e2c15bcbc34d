/**
 * Time from clicking Launch in the wizard to the first decoded frame in the viewer, on the real stack
 * (service, sample application, built portal, Chromium). Prints the median of each part over warm launches:
 *   POST     click -> POST /stream answered
 *   pending  -> the viewer page mounted (polling while pending, navigation, loading the viewer)
 *   connect  -> the SDP answer applied (session lookup, WHEP offer/answer)
 *   frame    -> the first decoded frame shown
 * `sample (warm)` launches the profile that keeps one sample application warm (CONTRACT §16); before each
 * launch it waits until the replacement of the one claimed last is ready, as it is for the next person.
 * Usage: npx tsx bench/launch.ts [--runs 10] [--warmup 2] [--apps sample,terminal]  (build the portal first:
 * npm run build). `--apps` launches only those applications (`sample` covers its warm profile too).
 */
import { chromium, type Browser } from 'playwright-core';
import { chromiumLaunchOptions } from '../e2e/support/chromium';
import { startStack } from '../e2e/support/stack';
import { sampleCatalog } from '../e2e/support/catalogs';
import { median } from './stats';
import { launchOnce, type Split } from './launch-split';

const args = process.argv.slice(2);
function option(name: string, fallback: number): number {
  const i = args.indexOf(name);
  const value = i >= 0 ? Number(args[i + 1]) : NaN;
  return Number.isFinite(value) && value >= 0 ? value : fallback;
}
const runs = Math.max(1, option('--runs', 10));
const warmup = option('--warmup', 2);

/** The sample application, and two real programs of the display host. */
const catalog = sampleCatalog({ width: 640, height: 360, fps: 30 }).replace(
  'profiles:',
  `  - id: terminal
    name: Terminal
    description: xterm.
    versions:
      - { version: 379.0.0, description: xterm., launch: { display: { command: [xterm] } } }
  - id: model-viewer
    name: Model Viewer
    description: F3D.
    versions:
      - version: 1.3.1
        description: F3D.
        launch: { display: { command: [f3d, models/torus-knot.obj], files: [models] } }
profiles:
  - id: warm
    name: Warm
    description: The sample application, one kept warm.
    applications: [{ id: sample, versions: ['*'] }]
    settings: { width: 640, height: 360, fps: 30, max_width: 640, max_height: 360, warm: 1 }`,
);
const only = args.includes('--apps') ? (args[args.indexOf('--apps') + 1] ?? '').split(',') : null;
/** Each application launched, and how many measured launches of it (real programs start slower). */
const allTargets = [
  { app: 'sample', profile: 'small', runs, target: 400 },
  { app: 'sample', profile: 'warm', runs, target: 300 },
  { app: 'terminal', profile: 'small', runs: Math.min(runs, 5), target: 1500 },
  { app: 'model-viewer', profile: 'small', runs: Math.min(runs, 5), target: 1500 },
];
const targets = allTargets.filter((target) => !only || only.includes(target.app));

/** Waits until the warm profile holds its application again, then for it to be ready (it starts in well under 1 s). */
async function warmAgain(apiURL: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const capacity = (await (await fetch(`${apiURL}/admin/capacity`)).json()) as { warm: number };
    if (capacity.warm >= 1) break;
    if (Date.now() > deadline) throw new Error('No warm application came back within 30 s.');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await new Promise((resolve) => setTimeout(resolve, 1_500));
}

async function main() {
  // One person launching some 40 sessions in a minute or two is the bench's doing: the per-user rate limit (30 a
  // minute, 10 at once) would refuse some of them on a fast machine, and the bench would time out on its answer.
  const stack = await startStack({ catalog, beside: ['models'], env: { STREAMGATE_RATE_LIMIT: 'off' } });
  const results: { app: string; splits: Split[]; target: number }[] = [];
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch(chromiumLaunchOptions);
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    // tsx wraps named functions in __name(); functions evaluated in the page need that helper too.
    await page.addInitScript({ content: 'window.__name = (f) => f;' });
    for (const target of targets) {
      const splits: Split[] = [];
      const name = target.profile === 'warm' ? `${target.app} (warm)` : target.app;
      for (let i = 0; i < warmup + target.runs; i++) {
        if (target.profile === 'warm') await warmAgain(stack.apiURL);
        const { split, sessionId } = await launchOnce(page, stack.baseURL, target.app, target.profile);
        const ended = await fetch(`${stack.apiURL}/stream/${sessionId}`, { method: 'DELETE' });
        if (ended.status !== 204) throw new Error(`Ending ${sessionId} answered ${ended.status}.`);
        if (i >= warmup) splits.push(split);
        const label = `${name} ${i < warmup ? 'warm-up' : `run ${i - warmup + 1}`}`;
        console.log(
          `${label.padEnd(20)} total ${split.total.toFixed(0)} ms (POST ${split.post.toFixed(0)}, pending ` +
            `${split.pending.toFixed(0)}, connect ${split.connect.toFixed(0)}, frame ${split.frame.toFixed(0)})`,
        );
      }
      results.push({ app: name, splits, target: target.target });
    }
  } finally {
    try {
      await browser?.close();
    } finally {
      await stack.stop();
    }
  }
  console.log('\nLaunch click to first frame, median of the measured launches (ms):');
  console.log('application     runs   POST pending connect  frame  total   target');
  for (const { app, splits, target } of results) {
    const part = (key: keyof Split) =>
      median(splits.map((s) => s[key]))
        .toFixed(0)
        .padStart(6);
    const total = median(splits.map((s) => s.total));
    console.log(
      `${app.padEnd(14)}${String(splits.length).padStart(6)} ${part('post')}${part('pending')}${part('connect')}${part('frame')}${part('total')}   ${target} ${total <= target ? 'met' : 'missed'}`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
