/** Asks before ending a session: it stops the application for everyone watching it. */
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import { describeError } from '../lib/error-text';

/**
 * The confirmation, open while `sessionId` names a session. `name`: what it runs ("USD Viewer 1.2.0 (Light)"),
 * said first where known, the id after it; `hint`: what the page offers instead (the viewer's Disconnect);
 * `error`: why the last try to end it failed, shown until the next one.
 */
export function EndSessionDialog(props: {
  sessionId: string | undefined;
  name?: string | undefined;
  ending: boolean;
  error?: unknown;
  hint?: string;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const { error } = props;
  return (
    <Dialog open={props.sessionId !== undefined} onClose={props.onCancel} aria-labelledby="end-session-title">
      <DialogTitle id="end-session-title">End this session?</DialogTitle>
      <DialogContent>
        <DialogContentText>
          {props.name ?? 'This session'} will be stopped and its application closed. Anyone watching it loses
          the stream.{props.hint ? ` ${props.hint}` : ''}
        </DialogContentText>
        <DialogContentText variant="caption" component="p" sx={{ mt: 1, overflowWrap: 'anywhere' }}>
          Session {props.sessionId}
        </DialogContentText>
        {error ? (
          <DialogContentText color="error" role="alert">
            {describeError(error, 'This session')}
          </DialogContentText>
        ) : null}
      </DialogContent>
      <DialogActions>
        <Button onClick={props.onCancel} disabled={props.ending}>
          Keep it
        </Button>
        <Button color="error" variant="contained" onClick={props.onConfirm} disabled={props.ending}>
          End session
        </Button>
      </DialogActions>
    </Dialog>
  );
}
