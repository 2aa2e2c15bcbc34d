/** The routes: every page is a URL that can be shared and reloaded. Viewer and admin load only when opened. */
import { lazy, type ComponentType } from 'react';
import { createBrowserRouter, Navigate, useParams, type RouteObject } from 'react-router-dom';
import type { EnsureQueryDataOptions, QueryClient, QueryKey } from '@tanstack/react-query';
import Alert from '@mui/material/Alert';
import { catalogTags, CatalogPage } from '../features/catalog/components/catalog-page';
import { appQueries } from '../lib/queries/app-queries';
import { sessionQueries } from '../lib/queries/session-queries';
import { isSessionId } from '../lib/session-id';
import { mustSignIn } from '../lib/auth/credential';
import { SIGN_IN_CALLBACK_PATH } from '../lib/auth/sign-in';
import { getConfig } from '../lib/config';
import { Layout, pageLoading } from './layout';
import { NotFoundPage, RouteError } from './route-error';
import { SessionLink } from './session-link';
import { SignInCallback } from './sign-in-callback';

// Only the catalog (the first page) is in the entry chunk; every other page loads when opened.
const AppDetailPage = lazy(() =>
  import('../features/catalog/components/app-detail-page').then((m) => ({ default: m.AppDetailPage })),
);
const LaunchPage = lazy(() =>
  import('../features/launch/components/launch-page').then((m) => ({ default: m.LaunchPage })),
);
const SessionsPage = lazy(() =>
  import('../features/sessions/components/sessions-page').then((m) => ({ default: m.SessionsPage })),
);
const SettingsPage = lazy(() =>
  import('../features/settings/components/settings-page').then((m) => ({ default: m.SettingsPage })),
);
const AdminPage = lazy(() => import('../features/admin/components/admin-page'));
const CapacityPage = lazy(() => import('../features/admin/components/capacity-page'));
const AuditPage = lazy(() => import('../features/admin/components/audit-page'));
const CheckPage = lazy(() =>
  import('../features/check/components/check-page').then((m) => ({ default: m.CheckPage })),
);

// The viewer is written beside the portal; a glob keeps the build working whether or not it is present yet.
const viewerModules = import.meta.glob<{ default: ComponentType }>([
  '../features/viewer/components/viewer-page.tsx',
  '../features/viewer/components/watch-page.tsx',
]);
const loadViewer = viewerModules['../features/viewer/components/viewer-page.tsx'];
const loadWatch = viewerModules['../features/viewer/components/watch-page.tsx'];

function ViewerMissing() {
  return <Alert severity="warning">The viewer is not part of this build.</Alert>;
}

/** Starts loading the viewer's code without waiting for it (a loader that never holds its page up). */
function preloadViewer(): null {
  void loadViewer?.().catch(() => undefined);
  return null;
}

const ViewerPage = lazy(async () => (loadViewer ? loadViewer() : { default: ViewerMissing }));
const WatchPage = lazy(async () => (loadWatch ? loadWatch() : { default: ViewerMissing }));

/** `/apps/:appId/versions/:version`, a link to one version, opens the application with that version chosen. */
function VersionLink() {
  const { appId = '', version = '' } = useParams();
  return (
    <Navigate
      to={`/apps/${encodeURIComponent(appId)}?${new URLSearchParams({ version }).toString()}`}
      replace
    />
  );
}

/**
 * Starts a page's first query from its URL, so that the page opens with its data. Never in the way: a
 * failure (or a service slower than a moment) is left to the page, which asks again and shows it.
 */
async function prefetch<T, K extends QueryKey>(
  queryClient: QueryClient,
  options: EnsureQueryDataOptions<T, Error, T, K>,
): Promise<null> {
  // A person who is not signed in yet is on the way to the provider: the page would only be refused.
  if (mustSignIn(getConfig())) return null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const moment = new Promise((resolve) => (timer = setTimeout(resolve, 1000)));
  await Promise.race([
    queryClient.ensureQueryData({ ...options, retry: false }).catch(() => undefined),
    moment,
  ]);
  clearTimeout(timer);
  return null;
}

/**
 * The prefetch runs again only for other data (another page or other tags): a search typed in the catalog,
 * a version chosen or a mode changed must not wait for a loader.
 */
function shouldRevalidate({ currentUrl, nextUrl }: { currentUrl: URL; nextUrl: URL }): boolean {
  return (
    currentUrl.pathname !== nextUrl.pathname ||
    catalogTags(currentUrl.searchParams).join() !== catalogTags(nextUrl.searchParams).join()
  );
}

/** The route table, shared by the browser router and the tests' memory routers. */
export const createRoutes = (queryClient: QueryClient): RouteObject[] => {
  const catalog = ({ request }: { request: Request }) =>
    prefetch(queryClient, appQueries.list(catalogTags(new URL(request.url).searchParams)));
  return [
    {
      element: <Layout />,
      errorElement: <RouteError />,
      children: [
        {
          errorElement: <RouteError />,
          // On the first load the pages' loaders run before anything renders; the app bar need not wait.
          hydrateFallbackElement: pageLoading,
          children: [
            { path: '/', element: <CatalogPage />, loader: catalog, shouldRevalidate },
            { path: '/apps', element: <CatalogPage />, loader: catalog, shouldRevalidate },
            {
              path: '/apps/:appId',
              element: <AppDetailPage />,
              loader: ({ params }) => prefetch(queryClient, appQueries.detail(params.appId ?? '')),
              shouldRevalidate,
            },
            { path: '/apps/:appId/versions/:version', element: <VersionLink /> },
            // Whoever opens the launch form is about to watch: the viewer's code comes meanwhile.
            {
              path: '/launch',
              element: <LaunchPage />,
              loader: preloadViewer,
              shouldRevalidate: () => false,
            },
            { path: '/sessions', element: <SessionsPage /> },
            {
              path: '/sessions/:sessionId',
              element: <SessionLink viewer={<ViewerPage />} />,
              loader: ({ params }) =>
                isSessionId(params.sessionId ?? '')
                  ? prefetch(queryClient, sessionQueries.detail(params.sessionId ?? ''))
                  : null,
              shouldRevalidate,
            },
            { path: '/watch', element: <WatchPage /> },
            { path: '/admin', element: <Navigate to="/admin/profiles" replace /> },
            { path: '/admin/profiles', element: <AdminPage /> },
            { path: '/admin/capacity', element: <CapacityPage /> },
            { path: '/admin/audit', element: <AuditPage /> },
            { path: '/check', element: <CheckPage /> },
            { path: '/settings', element: <SettingsPage /> },
            { path: SIGN_IN_CALLBACK_PATH, element: <SignInCallback /> },
            { path: '*', element: <NotFoundPage /> },
          ],
        },
      ],
    },
  ];
};

/** The browser router of the running portal. */
export function createAppRouter(queryClient: QueryClient) {
  return createBrowserRouter(createRoutes(queryClient));
}
