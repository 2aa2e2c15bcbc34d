/** The routes: every page is a URL that can be shared and reloaded. Viewer and admin load only when opened. */
import { lazy, type ComponentType } from 'react';
import { createBrowserRouter, Navigate, type RouteObject } from 'react-router-dom';
import Alert from '@mui/material/Alert';
import { CatalogPage } from '../features/catalog/components/catalog-page';
import { Layout } from './layout';
import { NotFoundPage, RouteError } from './route-error';

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

// The viewer is written beside the portal; a glob keeps the build working whether or not it is present yet.
const viewerModules = import.meta.glob<{ default: ComponentType }>(
  '../features/viewer/components/viewer-page.tsx',
);
const loadViewer = Object.values(viewerModules)[0];

function ViewerMissing() {
  return <Alert severity="warning">The viewer is not part of this build.</Alert>;
}

const ViewerPage = lazy(async () => (loadViewer ? loadViewer() : { default: ViewerMissing }));

/** The route table, shared by the browser router and the tests' memory routers. */
export const routes: RouteObject[] = [
  {
    element: <Layout />,
    errorElement: <RouteError />,
    children: [
      {
        errorElement: <RouteError />,
        children: [
          { path: '/', element: <CatalogPage /> },
          { path: '/apps', element: <CatalogPage /> },
          { path: '/apps/:appId', element: <AppDetailPage /> },
          { path: '/launch', element: <LaunchPage /> },
          { path: '/sessions', element: <SessionsPage /> },
          { path: '/sessions/:sessionId', element: <ViewerPage /> },
          { path: '/admin', element: <Navigate to="/admin/profiles" replace /> },
          { path: '/admin/profiles', element: <AdminPage /> },
          { path: '/settings', element: <SettingsPage /> },
          { path: '*', element: <NotFoundPage /> },
        ],
      },
    ],
  },
];

/** The browser router of the running portal. */
export function createAppRouter() {
  return createBrowserRouter(routes);
}
