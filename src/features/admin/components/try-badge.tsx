/**
 * What the last Try of a cell showed, in a few words that keep the column narrow: "applies" and "not tried
 * yet" before any; a green "works" with the first frame's time; a red "failed" or "timed out", or an orange
 * "refused", whose whole reason is in a tooltip (on hover, on focus, or on a tap of the badge) and is the
 * badge's accessible description.
 */
import { useState, type ReactElement } from 'react';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import ErrorIcon from '@mui/icons-material/Error';
import WarningAmberIcon from '@mui/icons-material/WarningAmber';
import Chip from '@mui/material/Chip';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { agoText, type TryOutcome } from '../api/try-outcomes';

/** When it was tried, "2 min ago", the date itself on hover. */
function When({ at, now, before }: { at: number; now: number; before?: string }) {
  return (
    <Typography variant="caption" color="text.secondary" title={new Date(at).toLocaleString()}>
      {before ? `${before}, ` : ''}
      {agoText(at, now)}
    </Typography>
  );
}

/** A badge whose reason shows in a tooltip; a tap toggles it, for screens without a pointer to hover. */
function ReasonChip(props: {
  label: string;
  name: string;
  reason: string;
  color: 'error' | 'warning';
  icon: ReactElement;
}) {
  const [open, setOpen] = useState(false);
  return (
    <Tooltip
      title={props.reason}
      describeChild
      open={open}
      onOpen={() => setOpen(true)}
      onClose={() => setOpen(false)}
    >
      <Chip
        size="small"
        color={props.color}
        icon={props.icon}
        label={props.label}
        aria-label={props.name}
        onClick={() => setOpen((was) => !was)}
      />
    </Tooltip>
  );
}

/** The badge of `outcome` (undefined: never tried here) of the target named `label`. */
export function TryBadge({
  outcome,
  label,
  now,
}: {
  outcome: TryOutcome | undefined;
  label: string;
  now: number;
}) {
  if (outcome === undefined)
    return (
      <>
        <Typography variant="body2">applies</Typography>
        <Typography variant="caption" color="text.secondary">
          not tried yet
        </Typography>
      </>
    );
  switch (outcome.kind) {
    case 'frame':
      return (
        <>
          <Chip size="small" color="success" icon={<CheckCircleIcon />} label="works" />
          <When at={outcome.at} now={now} before={`first frame in ${Math.round(outcome.ms)} ms`} />
        </>
      );
    case 'failed':
    case 'timeout': {
      const timedOut = outcome.kind === 'timeout';
      const reason = timedOut ? `No first frame within ${outcome.seconds} s.` : outcome.reason;
      const what = timedOut ? 'timed out' : 'failed';
      return (
        <>
          <ReasonChip
            label={what}
            name={`Why the Try of ${label} ${what}`}
            reason={reason}
            color="error"
            icon={<ErrorIcon />}
          />
          <When at={outcome.at} now={now} />
        </>
      );
    }
    case 'refused':
      return (
        <>
          <ReasonChip
            label="refused"
            name={`Why the service refused the Try of ${label}`}
            reason={outcome.reason}
            color="warning"
            icon={<WarningAmberIcon />}
          />
          <When at={outcome.at} now={now} />
        </>
      );
  }
}
