import { isRouteErrorResponse, Link as RouterLink, useRouteError } from 'react-router-dom';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { describeError } from '../lib/error-text';

/** The route error boundary: server failures (5xx) land here. */
export function RouteError() {
  const error = useRouteError();
  return <ErrorPage error={error} notFound={isRouteErrorResponse(error) && error.status === 404} />;
}

/** The page of an address that matches no route. */
export function NotFoundPage() {
  return <ErrorPage error={undefined} notFound />;
}

function ErrorPage({ error, notFound }: { error: unknown; notFound: boolean }) {
  return (
    <Stack spacing={2} sx={{ p: 3 }}>
      <Typography variant="h4" component="h1">
        {notFound ? 'Page not found' : 'Something went wrong'}
      </Typography>
      <Alert severity="error">{notFound ? 'There is no page at this address.' : describeError(error)}</Alert>
      <Stack direction="row" spacing={1}>
        <Button variant="contained" onClick={() => window.location.reload()}>
          Reload
        </Button>
        <Button component={RouterLink} to="/">
          Go to the catalog
        </Button>
      </Stack>
    </Stack>
  );
}
