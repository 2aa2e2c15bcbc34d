import { useState } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { ErrorAlert } from '../../../components/error-alert';
import { forgetSession, getStartedSessions } from '../../../lib/session-history';
import { deleteSession } from '../../../lib/api/delete-session';
import type { SessionRow } from '../api/list-sessions';
import { sessionQueries } from '../api/session-queries';
import { EndSessionDialog } from './end-session-dialog';

/** "3 min", "2 h 5 min": how long ago a session was started. */
export function formatAge(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return 'under a minute';
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

function stateOf(row: SessionRow): { label: string; color: 'success' | 'warning' | 'error' } {
  if (row.failure !== undefined) return { label: 'failed', color: 'error' };
  return row.session?.status.condition === 'ready'
    ? { label: 'ready', color: 'success' }
    : { label: 'pending', color: 'warning' };
}

/** The caller's sessions: state, age, open the viewer, end one after confirming. */
export function SessionsPage() {
  const queryClient = useQueryClient();
  const sessions = useQuery(sessionQueries.list());
  const [ending, setEnding] = useState<string | undefined>();
  const end = useMutation({
    mutationFn: deleteSession,
    onSuccess: (_v, id) => {
      forgetSession(id);
      setEnding(undefined);
      void queryClient.invalidateQueries({ queryKey: sessionQueries.all() });
    },
  });
  const started = new Map(getStartedSessions().map((s) => [s.id, s]));
  const now = Date.now();

  return (
    <>
      <Typography variant="h4" component="h1" gutterBottom>
        Sessions
      </Typography>
      {sessions.isPending && <CircularProgress aria-label="Loading sessions" />}
      {sessions.isError && !sessions.data && (
        <ErrorAlert error={sessions.error} onRetry={() => void sessions.refetch()} />
      )}
      {end.isError && <ErrorAlert error={end.error} what="This session" />}
      {sessions.data?.source === 'browser' && (
        <Alert severity="info" sx={{ mb: 2 }}>
          This service does not list sessions; these are the sessions started from this browser.
        </Alert>
      )}
      {sessions.data?.rows.length === 0 && (
        <Typography>
          No sessions.{' '}
          <Link component={RouterLink} to="/apps" underline="always">
            Pick an application
          </Link>{' '}
          to start one.
        </Typography>
      )}
      {sessions.data && sessions.data.rows.length > 0 && (
        <TableContainer>
          <Table aria-label="Sessions" size="small">
            <TableHead>
              <TableRow>
                <TableCell>Session</TableCell>
                <TableCell>Application</TableCell>
                <TableCell>State</TableCell>
                <TableCell>Age</TableCell>
                <TableCell>Actions</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {sessions.data.rows.map((row) => {
                const local = started.get(row.id);
                const state = stateOf(row);
                return (
                  <TableRow key={row.id}>
                    <TableCell sx={{ fontFamily: 'monospace', overflowWrap: 'anywhere' }}>{row.id}</TableCell>
                    <TableCell>
                      {local ? `${local.app} ${local.version} (${local.profile})` : 'unknown'}
                    </TableCell>
                    <TableCell>
                      <Stack spacing={0.5}>
                        <Chip label={state.label} color={state.color} sx={{ alignSelf: 'start' }} />
                        <Typography variant="caption">
                          {row.failure ?? row.session?.status.message}
                        </Typography>
                      </Stack>
                    </TableCell>
                    <TableCell>{local ? formatAge(now - local.startedAt) : 'unknown'}</TableCell>
                    <TableCell>
                      <Stack direction="row" spacing={1}>
                        <Button
                          size="small"
                          component={RouterLink}
                          to={`/sessions/${row.id}`}
                          aria-label={`Open viewer of ${row.id}`}
                        >
                          Open viewer
                        </Button>
                        <Button
                          size="small"
                          color="error"
                          onClick={() => setEnding(row.id)}
                          aria-label={`End session ${row.id}`}
                        >
                          End
                        </Button>
                      </Stack>
                    </TableCell>
                  </TableRow>
                );
              })}
            </TableBody>
          </Table>
        </TableContainer>
      )}
      <EndSessionDialog
        sessionId={ending}
        ending={end.isPending}
        onCancel={() => setEnding(undefined)}
        onConfirm={() => ending && end.mutate(ending)}
      />
    </>
  );
}
