/** The QueryClient: the third error layer (one toast for failed background refetches) lives here. */
import { QueryCache, QueryClient } from '@tanstack/react-query';
import { isApiError } from '../lib/api-client';
import { describeError } from '../lib/error-text';
import { getServiceStatus } from '../lib/service-status';
import { showToast } from '../lib/toast';

/** Creates the portal's QueryClient; tests pass `retry: false`. */
export function createQueryClient(options: { retry?: boolean } = {}): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({
      onError: (error, query) => {
        // A first load shows its error in the page; only refetches of data already shown need a toast.
        // While the service is unreachable its banner already says why every refetch fails.
        if (query.state.data !== undefined && getServiceStatus().reachable)
          showToast(`Could not refresh: ${describeError(error)}`);
      },
    }),
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        retry:
          options.retry === false
            ? false
            : (count, error) =>
                count < 2 && (!isApiError(error) || error.status === 0 || error.status >= 500),
        // 5xx on a first load goes to the route's error boundary; 4xx are shown where they happened.
        throwOnError: (error, query) =>
          isApiError(error) && error.status >= 500 && error.status !== 503 && query.state.data === undefined,
      },
    },
  });
}
