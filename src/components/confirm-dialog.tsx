/**
 * Asks before something that cannot be undone (ending a session, deleting a file, removing a person): a title,
 * what will happen in the caller's words (with the last try's error, where it failed), a way back and the act
 * itself, in red. Both buttons wait while the act is under way.
 */
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import type { ReactNode } from 'react';

export function ConfirmDialog(props: {
  open: boolean;
  /** The title's element id, which names the dialog. */
  titleId: string;
  title: ReactNode;
  children: ReactNode;
  cancelLabel: string;
  confirmLabel: string;
  busy?: boolean;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  return (
    <Dialog open={props.open} onClose={props.onCancel} aria-labelledby={props.titleId}>
      <DialogTitle id={props.titleId}>{props.title}</DialogTitle>
      <DialogContent>{props.children}</DialogContent>
      <DialogActions>
        <Button onClick={props.onCancel} disabled={props.busy}>
          {props.cancelLabel}
        </Button>
        <Button color="error" variant="contained" onClick={props.onConfirm} disabled={props.busy}>
          {props.confirmLabel}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
