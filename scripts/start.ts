/**
 * `npm start`: builds the portal when its sources are newer than the build, then runs the service in the
 * foreground. The service starts the applications; Ctrl-C (or SIGTERM) reaches it and it stops every one of them.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const built = path.join(root, 'dist', 'index.html');

function newestMtime(entry: string): number {
  const full = path.join(root, entry);
  if (!existsSync(full)) return 0;
  const stat = statSync(full);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const child of readdirSync(full)) newest = Math.max(newest, newestMtime(path.join(entry, child)));
  return newest;
}

const sources = ['src', 'public', 'index.html', 'vite.config.ts', 'api/schema.ts', 'package-lock.json'];
const stale = !existsSync(built) || sources.some((s) => newestMtime(s) > statSync(built).mtimeMs);
if (stale) {
  console.log('Building the portal (vite build)...');
  const vite = path.join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    console.error('The portal build failed; see the messages above.');
    process.exit(result.status ?? 1);
  }
}

const service = spawn(process.execPath, ['--import', 'tsx', path.join('server', 'main.ts')], {
  cwd: root,
  stdio: 'inherit',
});
// A terminal's Ctrl-C reaches the whole foreground group, the service included; a signal sent to this process
// alone is passed on. Either way this process waits for the service to finish its clean stop.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (service.exitCode === null) service.kill(signal);
  });
}
service.on('exit', (code, signal) => {
  process.exit(code ?? (signal ? 1 : 0));
});
