import { useState } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import Alert from '@mui/material/Alert';
import Link from '@mui/material/Link';
import CircularProgress from '@mui/material/CircularProgress';
import Typography from '@mui/material/Typography';
import { ErrorAlert } from '../../../components/error-alert';
import { useNarrow } from '../../../components/use-narrow';
import { EndSessionDialog } from '../../../components/end-session-dialog';
import { sessionQueries } from '../../../lib/queries/session-queries';
import { useEndSession } from '../../../lib/queries/use-end-session';
import { useLaunchLabel } from '../../../lib/queries/use-launch-names';
import { EndedSessions } from './ended-sessions';
import { SessionCards, SessionTable } from './session-list';

/**
 * The caller's sessions: what waits, runs or has just failed, its state and age, open the viewer, end one after
 * confirming (the dialog names what it runs), take a failed one off the list; and below, what ended in the
 * last 30 days and why.
 */
export function SessionsPage() {
  const sessions = useQuery(sessionQueries.list());
  const narrow = useNarrow();
  const [ending, setEnding] = useState<string | undefined>();
  const end = useEndSession();
  // A failed session runs nothing: it is taken off the list without asking.
  const remove = useEndSession();
  const rows = sessions.data?.rows ?? [];
  const List = narrow ? SessionCards : SessionTable;
  const endingName = useLaunchLabel(rows.find((row) => row.id === ending)?.ids);

  return (
    <>
      <Typography variant="h4" component="h1" gutterBottom>
        Sessions
      </Typography>
      {/* Not "Running": a session that failed stays here a while, to say why. */}
      <Typography variant="h5" component="h2" gutterBottom>
        Current
      </Typography>
      {sessions.isPending && <CircularProgress aria-label="Loading sessions" />}
      {sessions.isError && !sessions.data && (
        <ErrorAlert error={sessions.error} onRetry={() => void sessions.refetch()} />
      )}
      {sessions.data?.source === 'browser' && (
        <Alert severity="info" sx={{ mb: 2 }}>
          This service does not list sessions; these are the sessions started from this browser.
        </Alert>
      )}
      {sessions.data && rows.length === 0 && (
        <Typography>
          No sessions.{' '}
          <Link component={RouterLink} to="/apps" underline="always">
            Pick an application
          </Link>{' '}
          to start one.
        </Typography>
      )}
      {remove.isError && <ErrorAlert error={remove.error} what="This session" />}
      {rows.length > 0 && (
        <List
          rows={rows}
          now={Date.now()}
          onEnd={(id) => {
            end.reset();
            setEnding(id);
          }}
          onRemove={(id) => remove.mutate(id)}
        />
      )}
      <EndSessionDialog
        sessionId={ending}
        name={endingName}
        ending={end.isPending}
        error={end.error}
        onCancel={() => setEnding(undefined)}
        onConfirm={() => ending && end.mutate(ending, { onSuccess: () => setEnding(undefined) })}
      />
      {/* Asked once the running ones answered: a refusal of those, said above, would only be said twice. */}
      {sessions.data && <EndedSessions />}
    </>
  );
}
