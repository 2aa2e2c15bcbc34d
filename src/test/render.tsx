/** Renders the portal's real routes at a URL, with a fresh QueryClient (retry off) per test. */
import { render } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { createQueryClient } from '../app/query-client';
import { createRoutes } from '../app/router';
import { ThemeModeProvider } from '../app/theme-mode';

/** Renders the route at `path`; returns the router so tests can check where it navigated. */
export function renderRoute(path: string) {
  const queryClient = createQueryClient({ retry: false });
  const router = createMemoryRouter(createRoutes(queryClient), { initialEntries: [path] });
  const result = render(
    <ThemeModeProvider>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </ThemeModeProvider>,
  );
  return { ...result, router, queryClient };
}
