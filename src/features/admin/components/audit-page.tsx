import { useSearchParams } from 'react-router-dom';
import { useMutation, useQuery } from '@tanstack/react-query';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import DownloadIcon from '@mui/icons-material/Download';
import { ErrorAlert } from '../../../components/error-alert';
import { adminQueries } from '../api/admin-queries';
import { auditFiltersOf, auditParamsOf, auditQueryOf } from '../api/audit-filters';
import { downloadAuditCsv } from '../api/download-audit-csv';
import { AdminLinks } from './admin-links';
import { AuditFilterForm } from './audit-filter-form';
import { AuditTable } from './audit-table';

/**
 * `/admin/audit` (CONTRACT §22, admins only): who launched, ended, shared and tried what, and who failed to sign
 * in, newest first, filtered by person, action and day; the same events as a CSV file.
 */
export default function AuditPage() {
  const [params, setParams] = useSearchParams();
  const filters = auditFiltersOf(params);
  const query = auditQueryOf(filters);
  const audit = useQuery({ ...adminQueries.audit(query), throwOnError: false });
  const download = useMutation({ mutationFn: () => downloadAuditCsv(query) });
  const events = audit.data?.items ?? [];

  return (
    <Stack spacing={2}>
      <Typography variant="h4" component="h1">
        Audit log
      </Typography>
      <AdminLinks />
      <AuditFilterForm
        key={params.toString()}
        filters={filters}
        onApply={(next) => setParams(auditParamsOf(next))}
      />
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
        <Button
          variant="contained"
          startIcon={<DownloadIcon />}
          onClick={() => download.mutate()}
          disabled={download.isPending}
        >
          {download.isPending ? 'Downloading…' : 'Download CSV'}
        </Button>
      </Stack>
      {download.isError && <ErrorAlert error={download.error} />}
      {audit.isPending && <LinearProgress aria-label="Reading the audit log" />}
      {audit.isError && <ErrorAlert error={audit.error} onRetry={() => void audit.refetch()} />}
      {audit.data && events.length === 0 && <Typography>No events match these filters.</Typography>}
      {events.length > 0 && <AuditTable events={events} />}
      {audit.data?.truncated && (
        <Alert severity="info">
          These are the newest {events.length} events that match. Narrow the filters, or download the CSV, to
          see older ones.
        </Alert>
      )}
    </Stack>
  );
}
