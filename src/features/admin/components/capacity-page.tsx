import { useQuery } from '@tanstack/react-query';
import Alert from '@mui/material/Alert';
import LinearProgress from '@mui/material/LinearProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { ErrorAlert } from '../../../components/error-alert';
import { adminQueries } from '../api/admin-queries';
import { AdminLinks } from './admin-links';
import { CapacitySummary } from './capacity-summary';
import { DoorCard } from './door-card';
import { HealthPanel } from './health-panel';

/** `/admin/capacity`: the service's health at a glance, what holds the GPUs, and how viewers get in (the door), read every 5 s. */
export default function CapacityPage() {
  const capacity = useQuery(adminQueries.capacity());
  return (
    <Stack spacing={2}>
      <Typography variant="h4" component="h1">
        Capacity and the door
      </Typography>
      <AdminLinks />
      {capacity.isPending && <LinearProgress aria-label="Reading the capacity" />}
      {capacity.isError && <ErrorAlert error={capacity.error} onRetry={() => void capacity.refetch()} />}
      {capacity.data === null && (
        <Alert severity="info">
          The service does not tell its capacity here: only admins may read it, and other deployments of the
          API lack it.
        </Alert>
      )}
      <HealthPanel />
      <CapacitySummary />
      <DoorCard />
    </Stack>
  );
}
