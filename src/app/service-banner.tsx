import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import { useServiceProbe } from './use-service-probe';

/** One banner for the whole portal while the service cannot be reached; it goes away by itself. */
export function ServiceBanner() {
  const { status, retryNow, probing } = useServiceProbe();
  if (status.reachable) return null;
  return (
    <Alert
      severity="warning"
      // A status, not an alert: it is announced politely, and pages keep their own alerts for their own errors.
      role="status"
      sx={{ borderRadius: 0 }}
      action={
        <Button color="inherit" size="small" onClick={retryNow} disabled={probing}>
          Retry now
        </Button>
      }
    >
      Cannot reach the Streamgate service at {status.base}. Retrying…
    </Alert>
  );
}
