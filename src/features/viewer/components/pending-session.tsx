import { useLocation, useNavigate } from 'react-router-dom';
import type { UseQueryResult } from '@tanstack/react-query';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { ErrorAlert } from '../../../components/error-alert';
import { isTransientFailure, type SessionState } from '../../../lib/queries/session-queries';
import { useEndSession } from '../../../lib/queries/use-end-session';
import { pendingWords } from '../../../lib/session-condition';

/**
 * A session being prepared, as the page polls it: what it waits for and its place in the queue, in words
 * (session-condition.ts), lost contact said as such, and Cancel, which ends it and goes back where the person came
 * from.
 */
export function PendingSession(props: {
  id: string;
  watched: UseQueryResult<SessionState>;
  watchOnly: boolean;
}) {
  const { watched } = props;
  const navigate = useNavigate();
  const location = useLocation();
  const cancel = useEndSession();
  // A restarting service or a lost network: polling goes on, and the session is probably still waiting.
  const lostContact = isTransientFailure(watched.failureReason);
  const failed = watched.isError && !lostContact;
  const session = watched.data?.session;
  // "Waiting for a free GPU" over "You're next", "Starting USD Viewer 1.2.0", ...: the service's words, as a person reads them.
  const words = session && pendingWords(session.status.message);
  // Back to the launch form (or wherever the link was followed from); a page opened on its own stays.
  const leave = () => {
    if (location.key !== 'default') void navigate(-1);
  };
  return (
    <Stack spacing={2} component="section" aria-label="Session status">
      {watched.isPending && !lostContact && <LinearProgress aria-label="Starting the session" />}
      {lostContact && (
        <Alert severity="warning" role="status">
          Lost contact with the service, still trying…
        </Alert>
      )}
      {failed && (
        <ErrorAlert error={watched.error} what="This session" onRetry={() => void watched.refetch()} />
      )}
      {words && (
        <>
          <Typography variant="h6" component="h2">
            {words.heading}
          </Typography>
          {words.detail && (
            <Alert severity="info" role="status">
              {words.detail}
            </Alert>
          )}
          <LinearProgress aria-label="Waiting for the session" />
        </>
      )}
      {cancel.isError && <ErrorAlert error={cancel.error} what="This session" />}
      {!failed && !props.watchOnly && (
        <Button
          variant="outlined"
          color="error"
          onClick={() => cancel.mutate(props.id, { onSuccess: leave })}
          disabled={cancel.isPending}
          sx={{ alignSelf: 'start' }}
        >
          Cancel
        </Button>
      )}
    </Stack>
  );
}
