import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import { Link as RouterLink } from 'react-router-dom';
import { ErrorAlert } from '../../../components/error-alert';
import { LaunchError } from '../api/launch-session';

/**
 * A launch's failure that belongs to no field: its words, with Retry where trying again may work and a link to the
 * person's sessions where ending one is the way out.
 */
export function LaunchRefusalAlert(props: { error: unknown; onRetry: () => void }) {
  const { error } = props;
  if (!(error instanceof LaunchError)) return <ErrorAlert error={error} onRetry={props.onRetry} />;
  return (
    <Alert
      severity="error"
      action={
        <Stack direction="row" spacing={1}>
          {error.sessions && (
            <Button color="inherit" size="small" component={RouterLink} to="/sessions">
              Your sessions
            </Button>
          )}
          {error.retry && (
            <Button color="inherit" size="small" onClick={props.onRetry}>
              Retry
            </Button>
          )}
        </Stack>
      }
    >
      {error.message}
    </Alert>
  );
}
