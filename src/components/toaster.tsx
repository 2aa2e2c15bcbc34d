import { useSyncExternalStore } from 'react';
import Alert from '@mui/material/Alert';
import Snackbar from '@mui/material/Snackbar';
import { dismissToast, getToasts, subscribeToasts } from '../lib/toast';

/** Shows the first pending notice of src/lib/toast.ts. */
export function Toaster() {
  const toasts = useSyncExternalStore(subscribeToasts, getToasts);
  const toast = toasts[0];
  if (!toast) return null;
  return (
    <Snackbar open autoHideDuration={6000} onClose={() => dismissToast(toast.id)} key={toast.id}>
      <Alert severity={toast.severity} onClose={() => dismissToast(toast.id)} variant="filled">
        {toast.message}
      </Alert>
    </Snackbar>
  );
}
