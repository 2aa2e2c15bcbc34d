/** Asks before ending a session: it stops the application for everyone watching it. */
import DialogContentText from '@mui/material/DialogContentText';
import { describeError } from '../lib/error-text';
import { ConfirmDialog } from './confirm-dialog';

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
    <ConfirmDialog
      open={props.sessionId !== undefined}
      titleId="end-session-title"
      title="End this session?"
      cancelLabel="Keep it"
      confirmLabel="End session"
      busy={props.ending}
      onCancel={props.onCancel}
      onConfirm={props.onConfirm}
    >
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
    </ConfirmDialog>
  );
}
