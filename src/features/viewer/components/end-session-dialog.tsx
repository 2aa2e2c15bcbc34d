/** Asks before ending a session, since that stops the application for every viewer. */
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';

/** The confirm dialog; `error` is shown when ending failed. */
export function EndSessionDialog(props: {
  open: boolean;
  busy: boolean;
  error: string | undefined;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  return (
    <Dialog open={props.open} onClose={props.onCancel} aria-labelledby="end-session-title">
      <DialogTitle id="end-session-title">End this session?</DialogTitle>
      <DialogContent>
        <DialogContentText>
          The application stops for every viewer. To leave it running, use Disconnect instead.
        </DialogContentText>
        {props.error && <DialogContentText color="error">{props.error}</DialogContentText>}
      </DialogContent>
      <DialogActions>
        <Button onClick={props.onCancel}>Cancel</Button>
        <Button color="error" variant="contained" onClick={props.onConfirm} disabled={props.busy}>
          End session
        </Button>
      </DialogActions>
    </Dialog>
  );
}
