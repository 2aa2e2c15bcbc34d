/**
 * The logs of the local runner's applications: one file per session in the runner's log directory, readable by
 * the service's user alone, where an application's output goes (local-spawn.ts) and its last words are read
 * back when it ends; kept a while, then removed.
 */
import { chmod, mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { PRIVATE_DIR_MODE } from '../private-files.ts';

/** Where a session's application writes its output. */
export function logPath(logDir: string, sessionId: string): string {
  return path.join(logDir, `${sessionId}.log`);
}

/**
 * The last line an application wrote to its log (where the display host says why its program ended),
 * without its `[tag]` prefix and cut to a sentence's length; empty when there is none.
 */
export async function lastLogLine(logDir: string, sessionId: string): Promise<string> {
  let handle;
  try {
    handle = await open(logPath(logDir, sessionId), 'r');
    const { size } = await handle.stat();
    const length = Math.min(size, 4096);
    const { buffer } = await handle.read(Buffer.alloc(length), 0, length, size - length);
    const line = buffer.toString('utf8').trim().split('\n').pop() ?? '';
    const text = line.replace(/^\[[a-z-]+\]\s*/, '').trim();
    return text.length > 400 ? `${text.slice(0, 400)}…` : text;
  } catch {
    return '';
  } finally {
    await handle?.close();
  }
}

/**
 * Makes the logs directory readable by the service's user only, and removes log files last written
 * more than `olderThanMs` ago. Run at start.
 */
export async function tidyLogs(logDir: string, olderThanMs: number): Promise<void> {
  await mkdir(logDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  // An existing directory keeps its mode through mkdir, and older versions left it readable by all.
  await chmod(logDir, PRIVATE_DIR_MODE);
  const names = await readdir(logDir).catch(() => [] as string[]);
  const cutoff = Date.now() - olderThanMs;
  for (const name of names) {
    if (!name.endsWith('.log')) continue;
    const file = path.join(logDir, name);
    const info = await stat(file).catch(() => undefined);
    if (info && info.mtimeMs < cutoff) await rm(file, { force: true });
  }
}
