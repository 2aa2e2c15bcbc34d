/**
 * The folder's changes, as the file system tells them (inotify through `fs.watch`, no polling), told onwards at
 * most once per ~100 ms: a program writing a file in small pieces makes thousands of events a second, of which a
 * person's list needs the last.
 */
import { watch, type FSWatcher } from 'node:fs';

/** How long events are gathered before one change is told. */
export const CHANGES_COALESCED_MS = 100;

/**
 * Calls `fire` once, `delayMs` after the first of a burst of pokes; pokes meanwhile join that call, and a poke
 * after it starts the next. So a change is never told later than `delayMs` after it happened, nor more often.
 */
export class Coalescer {
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly delayMs: number,
    private readonly fire: () => void,
  ) {}

  poke(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.fire();
    }, this.delayMs);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/**
 * Watches the folder at `dir` (its own entries: a program's writes and removals, uploads once renamed into place)
 * and calls `changed` at most once per CHANGES_COALESCED_MS; events about names `ignore` says (uploads still being
 * written) are not changes anyone sees. Returns the function that stops watching.
 */
export function watchChanges(
  dir: string,
  ignore: (name: string) => boolean,
  changed: () => void,
): () => void {
  const coalescer = new Coalescer(CHANGES_COALESCED_MS, changed);
  let watcher: FSWatcher | null = watch(dir, { persistent: false }, (_event, name) => {
    if (typeof name === 'string' && ignore(name)) return;
    coalescer.poke();
  });
  // The folder unmounted under it (the session ending): nothing more to tell.
  watcher.on('error', () => stop());
  const stop = () => {
    coalescer.close();
    watcher?.close();
    watcher = null;
  };
  return stop;
}
