/**
 * `npx tsx bench/portal.ts`: what the first page of the portal costs.
 * 1. gzip size of the JavaScript the first page loads (module scripts and modulepreload links of dist/index.html),
 *    and the lazy chunks (viewer, admin) that must not be among them. Target: <= 200 KB gzip (the speed issue).
 * 2. time from navigation until the catalog is visible in headless Chromium, median of several cold loads,
 *    with a small catalog and with 5,000 applications.
 * Builds the portal first when dist/ is missing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { chromiumLaunchOptions } from '../e2e/support/chromium';
import { startStack } from '../e2e/support/stack';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
const TARGET_KB = 200;
const LOADS = 7;

function build(): void {
  const vite = path.join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error('npm run build failed');
}

const gzipKb = (file: string) => gzipSync(readFileSync(path.join(dist, file))).length / 1024;

function firstPageSize(): boolean {
  const html = readFileSync(path.join(dist, 'index.html'), 'utf8');
  const files = new Set<string>();
  for (const tag of html.match(/<(script|link)\b[^>]*>/g) ?? []) {
    const module = /type="module"/.test(tag) && /<script/.test(tag);
    const preload = /rel="modulepreload"/.test(tag);
    const url = /(?:src|href)="([^"]+)"/.exec(tag)?.[1];
    if ((module || preload) && url && !/^https?:/.test(url)) files.add(url.replace(/^\//, ''));
  }
  let total = 0;
  console.log('JavaScript of the first page (gzip):');
  for (const file of files) {
    const kb = gzipKb(file);
    total += kb;
    console.log(`  ${file.padEnd(48)} ${kb.toFixed(1).padStart(7)} KB`);
  }
  console.log(`  ${'total'.padEnd(48)} ${total.toFixed(1).padStart(7)} KB (target <= ${TARGET_KB} KB)`);
  const lazy = readdirSync(path.join(dist, 'assets')).filter((f) =>
    /^(viewer-page|admin-page)-.*\.js$/.test(f),
  );
  for (const file of lazy) {
    const loaded = [...files].some((f) => f.endsWith(file));
    console.log(
      `  lazy chunk ${file}: ${gzipKb(`assets/${file}`).toFixed(1)} KB, ${loaded ? 'LOADED BY THE FIRST PAGE' : 'loaded only when opened'}`,
    );
  }
  return total <= TARGET_KB && lazy.every((file) => ![...files].some((f) => f.endsWith(file)));
}

function bigCatalog(count: number): string {
  const apps = Array.from({ length: count }, (_, i) => {
    const n = String(i).padStart(4, '0');
    return `  - id: app-${n}\n    name: Application ${n}\n    description: Generated application ${n}.\n    tags: [t${i % 13}, bench]\n    versions:\n      - { version: 1.0.0, description: First. }`;
  });
  return `applications:\n${apps.join('\n')}\nprofiles:\n  - id: small\n    name: Small\n    description: Small.\n    applications: [{ id: '*', versions: ['*'] }]\n`;
}

async function timeToCatalog(label: string, catalog: string): Promise<void> {
  const stack = await startStack({ catalog });
  const browser = await chromium.launch(chromiumLaunchOptions);
  try {
    const times: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      // A new context each time: nothing cached, like a first visit.
      const context = await browser.newContext();
      const page = await context.newPage();
      const start = performance.now();
      await page.goto(`${stack.baseURL}/`);
      await page.getByRole('article').first().waitFor({ state: 'visible', timeout: 60_000 });
      times.push(performance.now() - start);
      await context.close();
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)] ?? NaN;
    console.log(
      `Time until the catalog is visible, ${label}: median ${median.toFixed(0)} ms over ${LOADS} cold loads ` +
        `(min ${times[0]?.toFixed(0)} ms, max ${times.at(-1)?.toFixed(0)} ms)`,
    );
  } finally {
    await browser.close();
    await stack.stop();
  }
}

async function main(): Promise<void> {
  if (!existsSync(path.join(dist, 'index.html'))) build();
  const withinTarget = firstPageSize();
  await timeToCatalog('3 applications', bigCatalog(3));
  await timeToCatalog('5,000 applications', bigCatalog(5000));
  if (!withinTarget) process.exitCode = 1;
}

await main();
