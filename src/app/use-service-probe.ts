/**
 * While the service is unreachable, asks it a cheap question with a growing pause between tries, and once it
 * answers, refetches every query so the pages show fresh data without a reload. react-query's online and focus
 * managers cannot do this: the browser stays "online" and focused while the service itself is down.
 */
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { bearerToken } from '../lib/auth/credential';
import { getConfig, resolveBaseUrl } from '../lib/config';
import {
  getServiceStatus,
  isGatewayFailure,
  reportReachable,
  subscribeServiceStatus,
  type ServiceStatus,
} from '../lib/service-status';

/** Pause before probe number `tries` (0-based): 1 s, then x1.5 up to 8 s. */
export function probeDelay(tries: number): number {
  return Math.min(1000 * 1.5 ** tries, 8000);
}

/** The cheapest request of each API: a tag no application is likely to have, or one session of the list. */
export function probeUrl(base: string): string {
  const catalog = resolveBaseUrl(getConfig().catalogUrl);
  return base === catalog ? `${base}/cfg/apps?tags=streamgate-probe` : `${base}/stream?limit=1`;
}

/** How long one probe may wait for an answer: a network that drops packets must not stall the retries. */
export const PROBE_TIMEOUT_MS = 5000;

/** Asks `base` once; any answer but a gateway failure proves the service is there. */
export async function probeService(base: string, signal?: AbortSignal): Promise<boolean> {
  const token = await bearerToken(getConfig(), { renew: false });
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), PROBE_TIMEOUT_MS);
  const onAbort = () => timeout.abort();
  signal?.addEventListener('abort', onAbort);
  try {
    const response = await globalThis.fetch(probeUrl(base), {
      cache: 'no-store',
      headers: token ? { Authorization: `Bearer ${token}` } : {},
      signal: timeout.signal,
    });
    return !isGatewayFailure(response);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * The service status, `retryNow` to probe at once instead of waiting out the pause, and whether that probe is
 * under way.
 */
export function useServiceProbe(): { status: ServiceStatus; retryNow: () => void; probing: boolean } {
  const status = useSyncExternalStore(subscribeServiceStatus, getServiceStatus);
  const queryClient = useQueryClient();
  const [nudge, setNudge] = useState(0);
  const [probing, setProbing] = useState(false);
  const wasDown = useRef(false);
  const handledNudge = useRef(0);

  useEffect(() => {
    if (!status.reachable) {
      wasDown.current = true;
      return;
    }
    if (wasDown.current) {
      wasDown.current = false;
      void queryClient.invalidateQueries();
    }
  }, [status.reachable, queryClient]);

  useEffect(() => {
    if (status.reachable) return;
    const immediate = nudge !== handledNudge.current;
    handledNudge.current = nudge;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    // `probing` is the probe the person asked for (Retry now), which its button waits for. The background
    // probes leave the button alone: it used to grey out and back at each of them, every second or so.
    const attempt = async (tries: number, asked: boolean) => {
      if (asked) setProbing(true);
      const ok = await probeService(status.base, controller.signal);
      if (controller.signal.aborted) return;
      if (asked) setProbing(false);
      if (ok) reportReachable();
      else timer = setTimeout(() => void attempt(tries + 1, false), probeDelay(tries + 1));
    };
    // "Retry now" probes at once; the first failure waits a moment, as the page's own retries are under way.
    if (immediate) void attempt(0, true);
    else timer = setTimeout(() => void attempt(0, false), probeDelay(0));
    return () => {
      controller.abort();
      clearTimeout(timer);
      setProbing(false);
    };
  }, [status.reachable, status.base, nudge]);

  const retryNow = useCallback(() => setNudge((n) => n + 1), []);
  return { status, retryNow, probing };
}
