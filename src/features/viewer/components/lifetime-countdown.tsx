/**
 * The end of a session at its lifetime, said in time to act: from 5 minutes before its `ends_at`, a countdown
 * in the warning colour and, for whoever may (its owner or an admin, never a watcher), Extend. A session the
 * service gives no `ends_at` (other deployments) shows nothing.
 */
import TimerOutlinedIcon from '@mui/icons-material/TimerOutlined';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { isApiError, type Session } from '../../../lib/api-client';
import { describeError } from '../../../lib/error-text';
import { useExtendSession } from '../../../lib/queries/use-extend-session';
import { useNow } from '../hooks/use-now';

/** How long before its end a session says it ends. */
export const WARN_BEFORE_MS = 5 * 60_000;

/** "4:32", "0:07": minutes and seconds left, never below zero. */
export function formatLeft(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** Why it was not extended: the service's own sentence for a refusal (at its maximum, a cluster that won't). */
function refusal(error: unknown): string {
  if (isApiError(error) && (error.status === 409 || error.status === 422))
    return typeof error.detail === 'string'
      ? error.detail
      : error.issues.map((issue) => issue.msg).join('; ');
  return describeError(error, 'This session');
}

export function LifetimeCountdown({ session, canExtend }: { session: Session; canExtend: boolean }) {
  const endsAt = Date.parse(session.ends_at ?? '');
  const known = !Number.isNaN(endsAt);
  // Once a second is enough for a clock that shows seconds, and costs nothing while it shows nothing.
  const now = useNow(known, 1000);
  const extend = useExtendSession();
  if (!known || endsAt - now > WARN_BEFORE_MS) return null;
  const latest = Date.parse(session.latest_end_at ?? '');
  // A minute is the least the service gives; less than that left to give is nothing to offer.
  const extendable = canExtend && latest - endsAt >= 60_000;
  const left = formatLeft(endsAt - now);
  return (
    <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
      <Chip
        role="timer"
        aria-label={`The session ends in ${left}`}
        color="warning"
        icon={<TimerOutlinedIcon />}
        label={`Ends in ${left}`}
      />
      {extendable && (
        <Button
          variant="outlined"
          color="warning"
          disabled={extend.isPending}
          onClick={() => extend.mutate({ id: session.id })}
          sx={{ whiteSpace: 'nowrap' }}
        >
          Extend
        </Button>
      )}
      {canExtend && !extendable && !extend.isError && (
        <Typography variant="body2" color="text.secondary">
          It runs to its maximum lifetime already.
        </Typography>
      )}
      {extend.isError && (
        <Typography role="alert" variant="body2" color="error" sx={{ maxWidth: '40ch' }}>
          {refusal(extend.error)}
        </Typography>
      )}
    </Stack>
  );
}
