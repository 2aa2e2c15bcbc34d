/**
 * One (version, profile) of the availability table: "does not apply"; or, where the profile applies, what its
 * last Try showed and the Try button, which becomes Cancel while its own Try runs (the focus stays on it).
 */
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { Profile } from '../../../lib/api-client';
import type { AvailabilityRow } from '../api/get-availability';
import { readOutcome, sameTarget, targetLabel, type TryTarget } from '../api/try-outcomes';
import type { RunningTry } from '../utils/try-queue';
import { TryBadge } from './try-badge';

/** What the cells need besides their row and profile. */
export interface TryProps {
  running: RunningTry | undefined;
  onTry: (target: TryTarget) => void;
  onCancel: () => void;
}

export function AvailabilityCell({
  row,
  profile,
  now,
  running,
  onTry,
  onCancel,
}: TryProps & { row: AvailabilityRow; profile: Profile; now: number }) {
  if (!row.applies.includes(profile.id))
    return (
      <Typography variant="body2" color="text.secondary">
        does not apply
      </Typography>
    );
  const target: TryTarget = {
    app: row.app,
    appName: row.appName,
    version: row.version,
    profile: profile.id,
    profileName: profile.name,
  };
  const mine = running !== undefined && sameTarget(running.target, target);
  const label = targetLabel(target);
  return (
    <Stack spacing={0.5} sx={{ alignItems: 'flex-start' }}>
      {mine ? (
        <Typography variant="body2">trying…</Typography>
      ) : (
        <TryBadge outcome={readOutcome(target)} label={label} now={now} />
      )}
      <Button
        size="small"
        variant="outlined"
        color={mine ? 'warning' : 'primary'}
        disabled={running !== undefined && !mine}
        aria-label={mine ? `Cancel the try of ${label}` : `Try ${label}`}
        onClick={() => (mine ? onCancel() : onTry(target))}
      >
        {mine ? 'Cancel' : 'Try'}
      </Button>
    </Stack>
  );
}
