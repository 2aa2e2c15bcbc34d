import { useMemo } from 'react';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { RouterProvider } from 'react-router-dom';
import { createAppRouter } from './router';
import { ThemeModeProvider } from './theme-mode';

/** The providers and the router of the running portal. */
export function App({ queryClient }: { queryClient: QueryClient }) {
  const router = useMemo(() => createAppRouter(queryClient), [queryClient]);
  return (
    <ThemeModeProvider>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </ThemeModeProvider>
  );
}
