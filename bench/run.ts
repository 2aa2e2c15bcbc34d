/**
 * `npm run bench`: runs every benchmark one after another (two cores: never two at once) and prints their figures.
 * `npm run bench -- server streamer` runs only those; the other arguments go to each of them
 * (`npm run bench -- density --sessions 1,3`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const all = [
  'server',
  'sessions',
  'streamer',
  'display',
  'sandbox',
  'encoder-rest',
  'portal',
  'launch',
  'viewer',
  'sound',
  'sound-idle',
  'slurm',
  'door',
  'encoding',
  'files',
  'density',
];
const chosen = process.argv.slice(2).filter((a) => all.includes(a));
const passed = process.argv.slice(2).filter((a) => !all.includes(a));
const benches = chosen.length > 0 ? chosen : all;

if (benches.some((b) => ['portal', 'launch', 'viewer', 'sound', 'door', 'files', 'density'].includes(b))) {
  const vite = path.join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  const build = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

let failed = 0;
for (const name of benches) {
  const file = path.join('bench', `${name}.ts`);
  if (!existsSync(path.join(root, file))) {
    console.error(`bench/${name}.ts is missing`);
    failed++;
    continue;
  }
  console.log(`\n=== ${name} ===`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', file, ...passed], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) failed++;
}
process.exit(failed > 0 ? 1 : 0);
