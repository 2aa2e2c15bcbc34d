/**
 * The end of a session in the words a person reads once: whether it failed or ended, and why, without the
 * layers each step put in front of the reason on its way ("This session has ended: it failed." from the
 * portal's reading of a 410, "The session failed:" from the service's detail). The one place that peels them.
 */
import { ENDED_HERE } from './queries/session-queries';

/** How a session ended, for a heading ("Failed", "Ended") and the one sentence under it. */
export interface SessionEnd {
  failed: boolean;
  reason: string;
}

/** What the portal writes before the service's reason when the session failed (a 410). */
const FAILED_LAYER = /^This session has ended: it failed\.\s*/;
/** Words that only repeat the heading, however many steps added them: a whole phrase, ended by a colon or stop. */
const REPEATS = [/^(?:The|This) session failed\s*[:.]\s*/i, /^This session has ended\s*[:.]\s*/i];
/** The portal's answer to a 404, which is the right one only for a session this page never saw. */
const UNKNOWN = /^No session has this id\b/;

/** The ended text without its repeated introductions. */
function peel(text: string): string {
  let rest = text.trim();
  for (let changed = true; changed;) {
    changed = false;
    for (const layer of REPEATS) {
      const next = rest.replace(layer, '');
      if (next !== rest) {
        rest = next.trim();
        changed = true;
      }
    }
  }
  return rest;
}

/**
 * How `ended` (a `SessionState.ended`, or a player's end) reads. `seen`: the page knew the session before it
 * was gone, so that "no session has this id" is simply its end. `failed`: the caller knows already that it failed.
 */
export function sessionEnd(ended: string, seen: boolean, failed = false): SessionEnd {
  if (ended === ENDED_HERE) return { failed: false, reason: ENDED_HERE };
  const layered = FAILED_LAYER.test(ended);
  const reason = peel(ended.replace(FAILED_LAYER, ''));
  if (layered || failed) return { failed: true, reason: reason || 'It stopped without saying why.' };
  if (!reason || (seen && UNKNOWN.test(reason))) return { failed: false, reason: 'This session has ended.' };
  return { failed: false, reason };
}
