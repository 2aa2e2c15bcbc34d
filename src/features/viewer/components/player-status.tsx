/** What the player is doing, over the video: connecting, the reconnect countdown, a failure, the end. */
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router-dom';
import type { PlayerState } from '../../../player';
import { ENDED_HERE } from '../../../lib/queries/session-queries';
import { useNow } from '../hooks/use-now';
import { NO_PICTURE_MS, useNoPicture } from './use-no-picture';

/** What a person reads when no picture has come for a while, and what to try. */
export const NO_PICTURE_TEXT =
  `No picture has arrived in ${NO_PICTURE_MS / 1000} s. The program may not have opened a window yet: ` +
  'wait a little longer, reconnect, or end the session.';

/** What a person reads beside the way to the connection check, when the stream has not started. */
export const CHECK_HINT_TEXT = 'The stream has not started. The connection check finds what is in the way.';

/**
 * The overlay for every state but `playing`, which shows nothing. `relaunch`: where to launch the same
 * again once it has ended (the person's own viewer; a watcher gets only the way to the sessions).
 */
export function PlayerStatus(props: {
  state: PlayerState;
  relaunch?: string;
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
          severity="info"
          action={
            <>
              {props.relaunch && (
                <Button
                  color="inherit"
                  size="small"
                  component={RouterLink}
                  to={props.relaunch}
                  sx={{ whiteSpace: 'nowrap' }}
                >
                  Launch again
                </Button>
              )}
              <Button color="inherit" size="small" component={RouterLink} to="/sessions">
                Sessions
              </Button>
            </>
          }
        >
          {state.reason === ENDED_HERE ? (
            <strong>{ENDED_HERE}</strong>
          ) : (
            <>
              <strong>This session has ended.</strong>
              {state.reason && state.reason !== 'This session has ended.' ? ` ${state.reason}` : ''}
            </>
          )}
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
        bgcolor: 'rgba(0,0,0,0.45)',
        zIndex: 3,
      }}
    >
      {content}
      {/* After 10 s without a picture, or a failure: what may be in the way is the check's to find. */}
      {(noPicture || state.kind === 'failed') && (
        <Alert
          severity="info"
          sx={{ maxWidth: 560 }}
          action={
            <Button
              color="inherit"
              size="small"
              component={RouterLink}
              to="/check"
              sx={{ whiteSpace: 'nowrap' }}
            >
              Check the connection
            </Button>
          }
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
