/**
 * The sessions this browser shared a watch-only link of and has not stopped sharing since, kept in its
 * localStorage: the viewer offers "Stop sharing" only while such a link exists, including one made before a
 * reload. The service keeps no list of links (each is a signed ticket), so a link made in another browser is
 * that browser's to stop.
 */

/** localStorage key: session id to the time (ms) its last link was made. */
export const SHARED_LINKS_KEY = 'streamgate.shared-links';

/** Longer than any session lives: older entries name sessions long ended, and are dropped. */
const KEEP_MS = 7 * 24 * 3_600_000;

function read(): Record<string, number> {
  try {
    const parsed: unknown = JSON.parse(globalThis.localStorage?.getItem(SHARED_LINKS_KEY) ?? 'null');
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    return Object.fromEntries(
      Object.entries(parsed).filter((entry): entry is [string, number] => typeof entry[1] === 'number'),
    );
  } catch {
    return {};
  }
}

function write(links: Record<string, number>, now: number) {
  const kept = Object.entries(links).filter(([, at]) => now - at < KEEP_MS);
  try {
    if (kept.length === 0) globalThis.localStorage?.removeItem(SHARED_LINKS_KEY);
    else globalThis.localStorage?.setItem(SHARED_LINKS_KEY, JSON.stringify(Object.fromEntries(kept)));
  } catch {
    // A full or locked storage forgets the link after this page: the page that made it still offers the stop.
  }
}

/** Whether this browser made a watch link of `sessionId` that still works, as far as it knows. */
export function hasSharedLink(sessionId: string, now = Date.now()): boolean {
  const at = read()[sessionId];
  return at !== undefined && now - at < KEEP_MS;
}

/** A watch link of `sessionId` was made. */
export function rememberSharedLink(sessionId: string, now = Date.now()): void {
  write({ ...read(), [sessionId]: now }, now);
}

/** The sharing of `sessionId` stopped, or the session ended: no link of it works any more. */
export function forgetSharedLink(sessionId: string, now = Date.now()): void {
  const links = read();
  if (!(sessionId in links)) return;
  delete links[sessionId];
  write(links, now);
}
