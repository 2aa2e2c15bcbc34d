/**
 * The service's health at a glance (health-checks.ts): one line per check, worst first, each with an icon and
 * a colour that say good, warning or problem, and its words. Read with the capacity (every 5 s) and the
 * ended sessions the Sessions page also reads.
 */
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import ErrorIcon from '@mui/icons-material/Error';
import WarningIcon from '@mui/icons-material/Warning';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { sessionQueries } from '../../../lib/queries/session-queries';
import { adminQueries } from '../api/admin-queries';
import { healthChecks, type HealthLevel } from '../api/health-checks';

const LOOK: Record<HealthLevel, { icon: React.ReactNode; word: string }> = {
  ok: { icon: <CheckCircleIcon color="success" />, word: 'Good' },
  warning: { icon: <WarningIcon color="warning" />, word: 'Warning' },
  problem: { icon: <ErrorIcon color="error" />, word: 'Problem' },
};

export function HealthPanel() {
  const capacity = useQuery({ ...adminQueries.capacity(), select: (reading) => reading?.capacity });
  const ended = useInfiniteQuery({ ...sessionQueries.ended(), throwOnError: false });
  if (!capacity.data) return null;
  const first = ended.data?.pages[0];
  const checks = healthChecks(capacity.data, first?.kept ? first.items : undefined, Date.now());
  return (
    <Paper variant="outlined" sx={{ p: 2 }} component="section" aria-labelledby="health-heading">
      <Typography id="health-heading" variant="h6" component="h2">
        Health
      </Typography>
      <List dense aria-label="Health checks">
        {checks.map((check) => (
          <ListItem key={check.name} data-level={check.level} disableGutters>
            <ListItemIcon sx={{ minWidth: 36 }} role="img" aria-label={LOOK[check.level].word}>
              {LOOK[check.level].icon}
            </ListItemIcon>
            <ListItemText primary={check.name} secondary={check.text} />
          </ListItem>
        ))}
      </List>
    </Paper>
  );
}
