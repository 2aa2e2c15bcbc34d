import { isRouteErrorResponse, Link as RouterLink, useRouteError } from 'react-router-dom';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { describeError } from '../lib/error-text';
import { isChunkLoadError, useReloadWhenBack } from './use-reload-when-back';

/** The route error boundary: server failures (5xx) land here. */
export function RouteError() {
  const error = useRouteError();
  return <ErrorPage error={error} notFound={isRouteErrorResponse(error) && error.status === 404} />;
}

/** The page of an address that matches no route. */
export function NotFoundPage() {
  return <ErrorPage error={undefined} notFound />;
}

const reloadPage = () => window.location.reload();

function ErrorPage({ error, notFound }: { error: unknown; notFound: boolean }) {
  const unloaded = isChunkLoadError(error);
  const reloadsWhenBack = useReloadWhenBack(unloaded, reloadPage);
  const message = notFound
    ? 'There is no page at this address.'
    : !unloaded
      ? describeError(error)
      : reloadsWhenBack
        ? 'This page could not be downloaded: the server did not answer. It opens by itself when the server is back.'
        : 'This page could not be downloaded, even right after the server answered again. Reload to try once more.';
  return (
    <Stack spacing={2} sx={{ p: 3 }}>
      <Typography variant="h4" component="h1">
        {notFound ? 'Page not found' : 'Something went wrong'}
      </Typography>
      <Alert severity="error">{message}</Alert>
      <Stack direction="row" spacing={1}>
        <Button variant="contained" onClick={reloadPage}>
          Reload
        </Button>
        <Button component={RouterLink} to="/">
          Go to the catalog
        </Button>
      </Stack>
    </Stack>
  );
}
