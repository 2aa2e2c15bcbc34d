/**
 * Waiting on real processes (a service, an application, Xvfb), which no fake timer can hurry: a guard against
 * hanging, never a timing assertion. Unit tests of in-process code use fake timers or an injected clock instead.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `condition` every `everyMs` until it gives a value; throws naming `what` after `timeoutMs`. */
export async function until<T>(
  what: string,
  condition: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 30_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Whether `url` answers 2xx now; a refused or hanging connection is a no. */
export async function answers(url: string, headers: Record<string, string> = {}): Promise<boolean> {
  try {
    return (await fetch(url, { headers, signal: AbortSignal.timeout(5_000) })).ok;
  } catch {
    return false;
  }
}
