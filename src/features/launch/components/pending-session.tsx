import { Navigate, useSearchParams } from 'react-router-dom';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { ErrorAlert } from '../../../components/error-alert';
import { useEndSession } from '../../../lib/queries/use-end-session';
import { isTransientFailure, launchQueries } from '../api/launch-queries';

/** A session being prepared: its phase and message, polled until ready (then the viewer opens) or failed. */
export function PendingSession({ id }: { id: string }) {
  const [params, setParams] = useSearchParams();
  const queryClient = useQueryClient();
  const session = useQuery(launchQueries.session(id));
  const cancel = useEndSession();

  if (session.data?.status.condition === 'ready') return <Navigate to={`/sessions/${id}`} replace />;
  // A restarting service or a lost network: polling goes on, and the session is probably still waiting.
  const lostContact = isTransientFailure(session.failureReason);
  const failed = session.isError && !lostContact;
  const back = () => {
    const next = new URLSearchParams(params);
    next.delete('session');
    setParams(next);
  };
  return (
    <Stack spacing={2} component="section" aria-label="Session status">
      {session.isPending && !lostContact && <LinearProgress aria-label="Starting the session" />}
      {lostContact && (
        <Alert severity="warning" role="status">
          Lost contact with the service, still trying…
        </Alert>
      )}
      {failed && (
        <>
          <ErrorAlert error={session.error} what="This session" onRetry={() => void session.refetch()} />
          <Button onClick={back} sx={{ alignSelf: 'start' }}>
            Back to the form
          </Button>
        </>
      )}
      {session.data && (
        <>
          <Typography variant="h6" component="h2">
            Phase: {session.data.status.condition}
          </Typography>
          <Alert severity="info" role="status">
            {session.data.status.message || 'The session is being prepared.'}
          </Alert>
          <LinearProgress aria-label="Waiting for the session" />
        </>
      )}
      {cancel.isError && <ErrorAlert error={cancel.error} what="This session" />}
      {!failed && (
        <Button
          variant="outlined"
          color="error"
          onClick={() =>
            cancel.mutate(id, {
              onSuccess: () => {
                queryClient.removeQueries({ queryKey: launchQueries.session(id).queryKey });
                back();
              },
            })
          }
          disabled={cancel.isPending}
          sx={{ alignSelf: 'start' }}
        >
          Cancel
        </Button>
      )}
    </Stack>
  );
}
