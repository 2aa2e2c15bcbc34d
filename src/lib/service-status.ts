/**
 * Whether the service answers at all, learnt from every request the API client makes. A request that never
 * got an answer, or a gateway error from a proxy in front of the service, marks its base unreachable; any
 * other answer (even a 403 or a 404) proves the service is there. The banner and its probe read this store;
 * it has no UI of its own.
 */

/** What the portal knows about the service's reachability. */
export interface ServiceStatus {
  /** False once a request failed to reach the service, until one reaches it again. */
  reachable: boolean;
  /** The base URL (catalog or stream) whose request failed last; empty while reachable. */
  base: string;
  /** When the service was first found unreachable in this outage (ms since the epoch), else 0. */
  since: number;
}

const REACHABLE: ServiceStatus = { reachable: true, base: '', since: 0 };

let status: ServiceStatus = REACHABLE;
const listeners = new Set<() => void>();

function set(next: ServiceStatus): void {
  status = next;
  for (const listener of listeners) listener();
}

/** The current status (a stable object between changes, as `useSyncExternalStore` requires). */
export function getServiceStatus(): ServiceStatus {
  return status;
}

/** Calls `listener` on every change; returns the function that stops it. */
export function subscribeServiceStatus(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Records that a request to `base` got no answer from the service. */
export function reportUnreachable(base: string): void {
  if (!status.reachable && status.base === base) return;
  set({ reachable: false, base, since: status.reachable ? Date.now() : status.since });
}

/** Records that the service answered a request. */
export function reportReachable(): void {
  if (!status.reachable) set(REACHABLE);
}

/**
 * True when a response came from something in front of the service rather than the service: 502 and 504
 * always (the service never sends them), 503 only without a JSON body (the service's own 503, a full queue,
 * is JSON with a `detail` a person can act on).
 */
export function isGatewayFailure(response: Response): boolean {
  if (response.status === 502 || response.status === 504) return true;
  if (response.status !== 503) return false;
  return !(response.headers.get('Content-Type') ?? '').includes('json');
}

/**
 * Wraps a fetch so that every request it makes reports reachability for `base`. Aborted requests say nothing:
 * the page cancelled them, the network did not fail.
 */
export function watchedFetch(base: string, inner: (input: Request) => Promise<Response>) {
  return async (input: Request): Promise<Response> => {
    let response: Response;
    try {
      response = await inner(input);
    } catch (error) {
      if (!(error instanceof DOMException && error.name === 'AbortError')) reportUnreachable(base);
      throw error;
    }
    if (isGatewayFailure(response)) reportUnreachable(base);
    else reportReachable();
    return response;
  };
}
