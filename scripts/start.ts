/**
 * `npm start`: builds the portal when its sources are newer than the build, then runs the service in the
 * foreground. The service starts the applications; Ctrl-C (or SIGTERM) reaches it and it stops every one of them,
 * and so does the end of this process or of its parent, however they end.
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

// The IPC channel ties the service to this process: if this one is killed outright (SIGKILL), the channel
// closes and the service stops cleanly (server/main.ts), rather than run on with nobody to stop it.
const service = spawn(process.execPath, ['--import', 'tsx', path.join('server', 'main.ts')], {
  cwd: root,
  stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
});
const stopService = (signal: NodeJS.Signals) => {
  if (service.exitCode === null && service.signalCode === null) service.kill(signal);
};
// A terminal's Ctrl-C reaches the whole foreground group, the service included; a signal sent to this process
// alone is passed on. Either way this process waits for the service to finish its clean stop.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => stopService(signal));
// npm runs this under a shell, which may die of a signal without passing it on: a parent that is gone
// (this process handed to another) counts as being told to stop.
const parent = process.ppid;
const watch = setInterval(() => {
  if (process.ppid !== parent) {
    clearInterval(watch);
    stopService('SIGTERM');
  }
}, 500);
service.on('exit', (code, signal) => {
  clearInterval(watch);
  process.exit(code ?? (signal ? 1 : 0));
});
