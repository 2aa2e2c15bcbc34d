import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { ErrorAlert } from '../../../components/error-alert';
import { adminQueries } from '../api/admin-queries';
import { targetLabel } from '../api/try-outcomes';
import { applicableTargets } from '../api/try-summary';
import { TRY_TIMEOUT_MS, type RunningTry } from '../utils/try-queue';
import { AdminLinks } from './admin-links';
import { CapacitySummary } from './capacity-summary';
import { ProfileMatrix } from './profile-matrix';
import { TryAll } from './try-all';
import { TryProbe } from './try-probe';
import { useTry } from './use-try';

/** "Trying USD Viewer 1.2.0 with Default", and its place in a Try all: "Trying 3 of 8: …". */
function tryingText({ target, batch }: RunningTry): string {
  const place = batch ? `${batch.index} of ${batch.total}: ` : '';
  return `Trying ${place}${targetLabel(target)}`;
}

/** `/admin/profiles`: which profiles apply to which application versions, and a Try to see one stream. */
export default function AdminPage() {
  const availability = useQuery(adminQueries.availability());
  const { running, start, startAll, settle, cancel } = useTry();
  const [filter, setFilter] = useState('');
  const rows = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    return (availability.data?.rows ?? []).filter(
      (r) => !needle || `${r.app} ${r.appName} ${r.version}`.toLowerCase().includes(needle),
    );
  }, [availability.data, filter]);
  const targets = useMemo(
    () => applicableTargets(availability.data?.profiles ?? [], rows),
    [availability.data, rows],
  );

  return (
    <Stack spacing={2}>
      <Typography variant="h4" component="h1">
        Profile availability
      </Typography>
      <AdminLinks />
      <CapacitySummary />
      <Typography color="text.secondary">
        Which profiles apply to each application version, as the catalog lists them: &ldquo;applies&rdquo; is
        the catalog&apos;s word, not a test. A Try launches a short session, waits for its first frame (at
        most {TRY_TIMEOUT_MS / 1000} s) and ends it; this browser keeps each cell&apos;s last outcome.
      </Typography>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
        <TextField label="Filter applications" value={filter} onChange={(e) => setFilter(e.target.value)} />
        <Button
          variant="outlined"
          onClick={() => void availability.refetch()}
          disabled={availability.isFetching}
        >
          Refresh
        </Button>
      </Stack>
      <Paper
        variant="outlined"
        role="status"
        aria-label="Try in progress"
        sx={{ p: 1.5, display: running ? undefined : 'none' }}
      >
        {running && (
          <Stack spacing={1}>
            <Typography variant="body2">{tryingText(running)}</Typography>
            {running.sessionId ? (
              <TryProbe key={running.sessionId} sessionId={running.sessionId} onResult={settle} />
            ) : (
              <Typography variant="body2">Launching</Typography>
            )}
            <LinearProgress aria-label={`Trying ${targetLabel(running.target)}`} />
            <Button size="small" onClick={cancel} sx={{ alignSelf: 'flex-start' }}>
              {running.batch ? 'Stop trying all and end the session' : 'Cancel and end the session'}
            </Button>
          </Stack>
        )}
      </Paper>
      {availability.isPending && <LinearProgress aria-label="Reading the catalog" />}
      {availability.isError && (
        <ErrorAlert error={availability.error} onRetry={() => void availability.refetch()} />
      )}
      {availability.data && <TryAll targets={targets} busy={running !== undefined} onTryAll={startAll} />}
      {availability.data && (
        <ProfileMatrix
          profiles={availability.data.profiles}
          rows={rows}
          running={running}
          onTry={start}
          onCancel={cancel}
        />
      )}
    </Stack>
  );
}
