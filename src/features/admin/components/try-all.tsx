/**
 * "Try all" and what the Tries say so far: the cells shown that can be tried, one Try after another (a machine
 * has few GPUs), and one line that counts them, "5 of 8 work, 2 failed, 1 untested".
 */
import { useId } from 'react';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { TryTarget } from '../api/try-outcomes';
import { summarizeTries, summaryText } from '../api/try-summary';
import { useOutcomeChanges } from './use-outcome-changes';

export function TryAll({
  targets,
  busy,
  onTryAll,
}: {
  /** The applicable cells shown, in the table's order. */
  targets: readonly TryTarget[];
  /** A Try runs: another waits for it. */
  busy: boolean;
  onTryAll: (targets: readonly TryTarget[]) => void;
}) {
  useOutcomeChanges();
  const help = useId();
  return (
    <Stack direction="row" spacing={2} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
      <Button
        variant="contained"
        onClick={() => onTryAll(targets)}
        disabled={busy || targets.length === 0}
        aria-describedby={help}
      >
        Try all
      </Button>
      <Typography role="status" aria-label="Summary of the Tries" sx={{ fontWeight: 500 }}>
        {summaryText(summarizeTries(targets))}
      </Typography>
      <Typography id={help} variant="body2" color="text.secondary" sx={{ flexBasis: '100%' }}>
        Try all tries every cell shown where a profile applies, one after another.
      </Typography>
    </Stack>
  );
}
