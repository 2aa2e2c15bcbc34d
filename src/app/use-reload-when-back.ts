/**
 * A page whose code could not be downloaded (the server that serves the portal did not answer) cannot be
 * rendered until the browser fetches that code again, and a module import that failed is not retried by the
 * browser: the one cure is a reload. This asks the portal's own address with a growing pause, and reloads
 * once it answers, so the person does not have to notice that the server is back.
 */
import { useEffect } from 'react';
import { probeDelay } from './use-service-probe';

/** True for the errors browsers raise when a lazily loaded module (a page's chunk) fails to download. */
export function isChunkLoadError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return /dynamically imported module|Importing a module script failed|error loading dynamically imported module|Unable to preload CSS/i.test(
    error.message,
  );
}

/** While `active`, probes the page's address and reloads the page once the server answers. */
export function useReloadWhenBack(active: boolean, reload: () => void = () => window.location.reload()) {
  useEffect(() => {
    if (!active) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const attempt = async (tries: number) => {
      try {
        const response = await fetch(window.location.href, { cache: 'no-store', signal: controller.signal });
        if (response.ok) {
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
  }, [active, reload]);
}
