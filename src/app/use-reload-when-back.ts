/**
 * A page whose code could not be downloaded (the server that serves the portal did not answer) cannot be
 * rendered until the browser fetches that code again, and `React.lazy` keeps a page's failed import for good
 * (Chromium would retry the import itself, other browsers do not): the one cure is a reload. This asks the
 * portal's own address with a growing pause, and reloads once it answers, so the person does not have to
 * notice that the server is back.
 *
 * Once only: when the code still cannot be downloaded right after such a reload though the address answers
 * (a proxy or an extension that blocks it), reloading again would reload the page over and over.
 */
import { useEffect, useState } from 'react';
import { probeDelay } from './use-service-probe';

/** True for the errors browsers raise when a lazily loaded module (a page's chunk) fails to download. */
export function isChunkLoadError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return /dynamically imported module|Importing a module script failed|error loading dynamically imported module|Unable to preload CSS/i.test(
    error.message,
  );
}

/** Where a page that reloaded itself for code it could not download notes which address, and when. */
const RELOADED_KEY = 'streamgate.reloaded-for-code';

/** An error page this soon after such a reload of its address is the same failure again. */
export const RELOAD_AGAIN_AFTER_MS = 30_000;

function noteReload(): void {
  try {
    sessionStorage.setItem(RELOADED_KEY, JSON.stringify({ href: window.location.href, at: Date.now() }));
  } catch {
    // no storage: the page still reloads, it just cannot tell a second failure from a first
  }
}

/** True when this address was reloaded for code it could not download less than a moment ago. */
export function reloadedJustNow(now: number = Date.now()): boolean {
  try {
    const last = JSON.parse(sessionStorage.getItem(RELOADED_KEY) ?? 'null') as {
      href?: unknown;
      at?: unknown;
    };
    return (
      last?.href === window.location.href &&
      typeof last.at === 'number' &&
      now - last.at < RELOAD_AGAIN_AFTER_MS
    );
  } catch {
    return false;
  }
}

/**
 * While `active`, probes the page's address and reloads the page once the server answers. Returns whether it
 * does: not when this address was reloaded so a moment ago and failed again.
 */
export function useReloadWhenBack(
  active: boolean,
  reload: () => void = () => window.location.reload(),
): boolean {
  const [again] = useState(reloadedJustNow);
  const waiting = active && !again;
  useEffect(() => {
    if (!waiting) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const attempt = async (tries: number) => {
      try {
        const response = await fetch(window.location.href, { cache: 'no-store', signal: controller.signal });
        if (response.ok) {
          noteReload();
          reload();
          return;
        }
      } catch {
        // still down (or aborted: the cleanup below stops the loop)
      }
      if (!controller.signal.aborted)
        timer = setTimeout(() => void attempt(tries + 1), probeDelay(tries + 1));
    };
    timer = setTimeout(() => void attempt(0), probeDelay(0));
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [waiting, reload]);
  return waiting;
}
