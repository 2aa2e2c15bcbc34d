import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';
import ListItem from '@mui/material/ListItem';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import ErrorIcon from '@mui/icons-material/Error';
import HourglassEmptyIcon from '@mui/icons-material/HourglassEmpty';
import SkipNextIcon from '@mui/icons-material/SkipNext';
import WarningAmberIcon from '@mui/icons-material/WarningAmber';
import type { StepReport } from '../api/check-report';

/** How a step's status looks: an icon, and the same in words (never colour alone). */
function look(step: StepReport): { icon: React.ReactNode; words: string } {
  switch (step.status) {
    case 'waiting':
      return { icon: <HourglassEmptyIcon color="disabled" />, words: 'Waiting' };
    case 'running':
      return { icon: <CircularProgress size={22} />, words: 'Running' };
    case 'passed':
      return step.warning
        ? { icon: <WarningAmberIcon color="warning" />, words: 'Passed, with a warning' }
        : { icon: <CheckCircleIcon color="success" />, words: 'Passed' };
    case 'failed':
      return { icon: <ErrorIcon color="error" />, words: 'Failed' };
    case 'skipped':
      return { icon: <SkipNextIcon color="disabled" />, words: 'Skipped' };
  }
}

/** One step of the check: its name, its status in an icon and words, and what it found. */
export function CheckStepItem({ step }: { step: StepReport }) {
  const { icon, words } = look(step);
  return (
    <ListItem alignItems="flex-start" divider data-status={step.status}>
      <ListItemIcon aria-hidden sx={{ mt: 0.75, minWidth: 40 }}>
        {icon}
      </ListItemIcon>
      <ListItemText
        primary={step.name}
        slotProps={{ primary: { component: 'h2', variant: 'subtitle1' }, secondary: { component: 'div' } }}
        secondary={
          <>
            <Box component="strong" sx={{ color: 'text.primary' }}>
              {words}
            </Box>
            {`: ${step.detail}`}
            {step.warning && (
              <Box component="span" sx={{ display: 'block', color: 'warning.main', mt: 0.5 }}>
                {`Warning: ${step.warning}`}
              </Box>
            )}
          </>
        }
      />
    </ListItem>
  );
}
