/**
 * What the player is doing, over the video: connecting, a picture that stopped, the reconnect countdown, a
 * failure, the end (headed "Failed" in red for a session that failed, "Ended" for one that ended), a shared
 * link whose owner stopped sharing, and a viewer an owner removed.
 */
import LinkOffIcon from '@mui/icons-material/LinkOff';
import PersonOffIcon from '@mui/icons-material/PersonOff';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router-dom';
import type { PlayerState } from '../../../player';
import { useNow } from '../hooks/use-now';
import { NO_PICTURE_MS, useNoPicture } from './use-no-picture';

/** What a person reads when no picture has come for a while, and what to try. */
export const NO_PICTURE_TEXT =
  `No picture has arrived in ${NO_PICTURE_MS / 1000} s. The program may not have opened a window yet: ` +
  'wait a little longer, reconnect, or end the session.';

/** What a person reads while the picture stands still over a connection that still looks alive. */
export const STALLED_TEXT = 'The picture has stopped. Waiting for it to move again…';

/** What a person reads beside the way to the connection check, when the stream has not started. */
export const CHECK_HINT_TEXT = 'The stream has not started. The connection check finds what is in the way.';

/** A way elsewhere in an alert's actions, on one line. */
function ActionLink(props: { to: string; children: string }) {
  return (
    <Button color="inherit" size="small" component={RouterLink} to={props.to} sx={{ whiteSpace: 'nowrap' }}>
      {props.children}
    </Button>
  );
}

/**
 * The overlay for every state but `playing`, which shows nothing. `relaunch`: where to launch the same
 * again once it has ended (the person's own viewer); `sessions`: whether to offer the way back to the
 * sessions (not to someone watching through a shared link, who may have none).
 */
export function PlayerStatus(props: {
  state: PlayerState;
  relaunch?: string | undefined;
  sessions?: boolean;
  onRetry: () => void;
  onReconnect: () => void;
}) {
  const { state } = props;
  const now = useNow(state.kind === 'reconnecting');
  const noPicture = useNoPicture(state);
  if (state.kind === 'playing' || state.kind === 'idle') return null;
  let content: React.ReactNode;
  switch (state.kind) {
    case 'connecting':
    case 'waiting-for-video':
      content = (
        <>
          <CircularProgress aria-label="Connecting" />
          <Typography>
            {state.kind === 'waiting-for-video' ? 'Waiting for video…' : 'Connecting to the session…'}
          </Typography>
        </>
      );
      break;
    case 'stalled':
      content = (
        <>
          <CircularProgress aria-label="Waiting for the picture" />
          <Typography>{STALLED_TEXT}</Typography>
        </>
      );
      break;
    case 'reconnecting': {
      const seconds = Math.max(0, Math.ceil((state.retryAt - now) / 1000));
      content = (
        <Alert
          severity="warning"
          action={
            <Button color="inherit" size="small" onClick={props.onRetry}>
              Retry now
            </Button>
          }
        >
          Connection lost ({state.reason}). Reconnecting in {seconds} s, attempt {state.attempt}.
        </Alert>
      );
      break;
    }
    case 'failed':
      content = (
        <Alert
          severity="error"
          action={
            <Button color="inherit" size="small" onClick={props.onRetry}>
              Retry
            </Button>
          }
        >
          Could not connect: {state.reason}
        </Alert>
      );
      break;
    case 'ended':
      content = (
        <Alert
          severity={state.failed ? 'error' : 'info'}
          sx={{ maxWidth: 640, mx: 2 }}
          action={
            <>
              {props.relaunch && <ActionLink to={props.relaunch}>Launch again</ActionLink>}
              {props.sessions !== false && <ActionLink to="/sessions">Back to Sessions</ActionLink>}
            </>
          }
        >
          <AlertTitle>{state.failed ? 'Failed' : 'Ended'}</AlertTitle>
          {/* A program's last words may be long and unbroken: they wrap where they must. */}
          <Box component="span" sx={{ display: 'block', overflowWrap: 'anywhere', whiteSpace: 'pre-line' }}>
            {state.reason}
          </Box>
        </Alert>
      );
      break;
    case 'withdrawn':
      content = (
        <Alert severity="warning" icon={<LinkOffIcon />} sx={{ maxWidth: 640, mx: 2 }}>
          <AlertTitle>Sharing stopped</AlertTitle>
          <Box component="span" sx={{ display: 'block' }}>
            {state.reason}
          </Box>
        </Alert>
      );
      break;
    case 'removed':
      // Nothing to retry: the ticket this viewer came with lets nobody in any more.
      content = (
        <Alert severity="warning" icon={<PersonOffIcon />} sx={{ maxWidth: 640, mx: 2 }}>
          <AlertTitle>Removed</AlertTitle>
          <Box component="span" sx={{ display: 'block' }}>
            {state.reason}
          </Box>
        </Alert>
      );
      break;
    case 'disconnected':
      content = (
        <Alert
          severity="info"
          action={
            <Button color="inherit" size="small" onClick={props.onReconnect}>
              Reconnect
            </Button>
          }
        >
          Disconnected. The session keeps running.
        </Alert>
      );
      break;
  }
  return (
    <Box
      role="status"
      aria-live="polite"
      sx={{
        position: 'absolute',
        inset: 0,
        display: 'flex',
        flexDirection: 'column',
        alignItems: 'center',
        justifyContent: 'center',
        gap: 2,
        color: 'common.white',
        // A removed viewer sees the message in place of the picture, not over its last frame.
        bgcolor: state.kind === 'removed' ? 'common.black' : 'rgba(0,0,0,0.45)',
        zIndex: 3,
      }}
    >
      {content}
      {/* After 10 s without a picture, or a failure: what may be in the way is the check's to find. */}
      {(noPicture || state.kind === 'failed') && (
        <Alert
          severity="info"
          sx={{ maxWidth: 560 }}
          action={<ActionLink to="/check">Check the connection</ActionLink>}
        >
          {noPicture && (
            <Box component="span" sx={{ display: 'block', mb: 0.5 }}>
              {NO_PICTURE_TEXT}
            </Box>
          )}
          <Box component="span" sx={{ display: 'block' }}>
            {CHECK_HINT_TEXT}
          </Box>
        </Alert>
      )}
    </Box>
  );
}
