import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import { isApiError } from '../lib/api-client';
import { describeError } from '../lib/error-text';

/** Props of ErrorAlert. */
export interface ErrorAlertProps {
  error: unknown;
  /** What failed, for the 404 sentence ("Application x no longer exists"). */
  what?: string;
  /** Offered as a Retry button (always offered for network failures and 5xx). */
  onRetry?: () => void;
}

/** An error in words where it happened, with a Retry button when trying again can help. */
export function ErrorAlert({ error, what, onRetry }: ErrorAlertProps) {
  const retryable = !isApiError(error) || error.status === 0 || error.status >= 500 || error.status === 429;
  return (
    <Alert
      severity="error"
      action={
        onRetry && retryable ? (
          <Button color="inherit" size="small" onClick={onRetry}>
            Retry
          </Button>
        ) : undefined
      }
    >
      {describeError(error, what)}
    </Alert>
  );
}
