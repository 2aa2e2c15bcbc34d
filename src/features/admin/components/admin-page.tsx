import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import Button from '@mui/material/Button';
import FormControl from '@mui/material/FormControl';
import InputLabel from '@mui/material/InputLabel';
import LinearProgress from '@mui/material/LinearProgress';
import MenuItem from '@mui/material/MenuItem';
import Select from '@mui/material/Select';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { ErrorAlert } from '../../../components/error-alert';
import { adminQueries } from '../api/admin-queries';
import { toCsv } from '../api/check-profiles';
import { CapacitySummary } from './capacity-summary';
import { ProfileMatrix } from './profile-matrix';
import { useCheckProgress, type CheckProgress } from './use-check-progress';

type Show = 'all' | 'ok' | 'problems';

/** The bar of a running check: indeterminate while the applications are listed, then checks done of all. */
function CheckingBar({ progress }: { progress: CheckProgress | undefined }) {
  if (!progress) return <LinearProgress aria-label="Checking profiles" />;
  const { checked, total } = progress;
  const text = `Checked ${checked} of ${total} profiles`;
  return (
    <Stack spacing={0.5}>
      <LinearProgress
        variant="determinate"
        value={total > 0 ? (checked / total) * 100 : 100}
        aria-label="Checking profiles"
        aria-valuetext={text}
      />
      <Typography variant="body2" color="text.secondary">
        {text}
      </Typography>
    </Stack>
  );
}

/** `/admin/profiles`: which profiles resolve for every application and version, checked live. */
export default function AdminPage() {
  const { progress, onProgress, reset } = useCheckProgress();
  const report = useQuery(adminQueries.profileReport(onProgress));
  // A new run starts from the indeterminate bar, not from where the last one ended.
  const checkAgain = () => {
    reset();
    void report.refetch();
  };
  const [filter, setFilter] = useState('');
  const [show, setShow] = useState<Show>('all');
  const rows = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    return (report.data?.rows ?? []).filter((r) => {
      if (needle && !`${r.app} ${r.appName} ${r.version}`.toLowerCase().includes(needle)) return false;
      if (show === 'ok') return r.cells.some((c) => c.status === 'ok');
      if (show === 'problems')
        return r.error !== undefined || r.cells.some((c) => !['ok', '404'].includes(c.status));
      return true;
    });
  }, [report.data, filter, show]);
  const csvHref = useMemo(
    () => (report.data ? `data:text/csv;charset=utf-8,${encodeURIComponent(toCsv(report.data))}` : undefined),
    [report.data],
  );

  return (
    <Stack spacing={2}>
      <Typography variant="h4" component="h1">
        Profile availability
      </Typography>
      <CapacitySummary />
      <Typography color="text.secondary">
        Every profile asked for every application version: ok resolves, 404 does not apply, 403 and 422 are
        refused.
      </Typography>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
        <TextField label="Filter applications" value={filter} onChange={(e) => setFilter(e.target.value)} />
        <FormControl size="small" sx={{ minWidth: 180 }}>
          <InputLabel id="admin-show-label">Show</InputLabel>
          <Select
            labelId="admin-show-label"
            label="Show"
            value={show}
            onChange={(e) => setShow(e.target.value as Show)}
          >
            <MenuItem value="all">All rows</MenuItem>
            <MenuItem value="ok">Rows with a profile</MenuItem>
            <MenuItem value="problems">Rows with errors</MenuItem>
          </Select>
        </FormControl>
        <Button variant="contained" onClick={checkAgain} disabled={report.isFetching}>
          Check again
        </Button>
        <Button component="a" href={csvHref} download="profile-availability.csv" disabled={!csvHref}>
          Export CSV
        </Button>
      </Stack>
      {report.isFetching && <CheckingBar progress={progress} />}
      {report.isError && <ErrorAlert error={report.error} onRetry={checkAgain} />}
      {report.data && <ProfileMatrix profiles={report.data.profiles} rows={rows} />}
    </Stack>
  );
}
