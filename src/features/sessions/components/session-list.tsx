/**
 * The rows of the sessions page: a table where there is room, a card a session on a narrow screen, so that
 * nothing has to scroll sideways. Both say the same things and offer the same actions, and show a ready
 * session's recent still where the service has one.
 */
import { Link as RouterLink } from 'react-router-dom';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardActions from '@mui/material/CardActions';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import type { SessionRow } from '../../../lib/queries/list-sessions';
import { useLaunchLabel } from '../../../lib/queries/use-launch-names';
import { SessionStill } from './session-still';

/** "3 min", "2 h 5 min": how long ago a session was started. */
export function formatAge(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return 'under a minute';
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** What both layouts show of a session. */
interface RowsProps {
  rows: SessionRow[];
  /** Now, in epoch milliseconds, for the ages. */
  now: number;
  onEnd: (id: string) => void;
}

function stateOf(row: SessionRow): { label: string; color: 'success' | 'warning' | 'error' } {
  if (row.failure !== undefined) return { label: 'failed', color: 'error' };
  return row.session?.status.condition === 'ready'
    ? { label: 'ready', color: 'success' }
    : { label: 'pending', color: 'warning' };
}

function State({ row }: { row: SessionRow }) {
  const state = stateOf(row);
  return (
    <Stack spacing={0.5}>
      <Chip label={state.label} color={state.color} sx={{ alignSelf: 'start' }} />
      <Typography variant="caption">{row.failure ?? row.session?.status.message}</Typography>
    </Stack>
  );
}

/** The session's name first, its id beneath it in small type: the id is for support, not for reading. */
export function Launched({
  row,
  variant,
}: {
  row: Pick<SessionRow, 'id' | 'ids'>;
  variant: 'body2' | 'subtitle1';
}) {
  const name = useLaunchLabel(row.ids);
  return (
    <Box>
      <Typography variant={variant} component="p" sx={{ fontWeight: 700 }}>
        {name ?? 'Application unknown'}
      </Typography>
      <Typography
        variant="caption"
        color="text.secondary"
        sx={{ fontFamily: 'monospace', overflowWrap: 'anywhere' }}
      >
        {row.id}
      </Typography>
    </Box>
  );
}

function age(row: SessionRow, now: number): string {
  const since = row.startedAt === undefined ? 'unknown' : formatAge(now - row.startedAt);
  return row.user ? `${since}, by ${row.user}` : since;
}

function Actions({ row, onEnd }: { row: SessionRow; onEnd: (id: string) => void }) {
  return (
    <Stack direction="row" spacing={1}>
      <Button
        size="small"
        component={RouterLink}
        to={`/sessions/${row.id}`}
        aria-label={`Open viewer of ${row.id}`}
        sx={{ whiteSpace: 'nowrap', flexShrink: 0 }}
      >
        Open viewer
      </Button>
      <Button
        size="small"
        color="error"
        onClick={() => onEnd(row.id)}
        aria-label={`End session ${row.id}`}
        sx={{ whiteSpace: 'nowrap', flexShrink: 0 }}
      >
        End
      </Button>
    </Stack>
  );
}

/** One row a session, for screens with room for the columns. */
export function SessionTable({ rows, now, onEnd }: RowsProps) {
  return (
    <TableContainer>
      <Table aria-label="Sessions" size="small">
        <TableHead>
          <TableRow>
            <TableCell>Session</TableCell>
            <TableCell>State</TableCell>
            <TableCell>Age</TableCell>
            <TableCell>Actions</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((row) => (
            <TableRow key={row.id}>
              <TableCell>
                <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
                  <SessionStill row={row} width={160} />
                  <Launched row={row} variant="body2" />
                </Stack>
              </TableCell>
              <TableCell>
                <State row={row} />
              </TableCell>
              <TableCell>{age(row, now)}</TableCell>
              <TableCell sx={{ width: '1%' }}>
                <Actions row={row} onEnd={onEnd} />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

/** One card a session, stacked, for narrow screens. */
export function SessionCards({ rows, now, onEnd }: RowsProps) {
  return (
    <Stack component="ul" aria-label="Sessions" spacing={1.5} sx={{ listStyle: 'none', p: 0, m: 0 }}>
      {rows.map((row) => (
        <Card component="li" key={row.id} variant="outlined">
          <CardContent sx={{ pb: 0 }}>
            <Box sx={{ mb: 1, '&:empty': { display: 'none' } }}>
              <SessionStill row={row} width={320} />
            </Box>
            <Launched row={row} variant="subtitle1" />
            <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
              Age: {age(row, now)}
            </Typography>
            <State row={row} />
          </CardContent>
          <CardActions>
            <Actions row={row} onEnd={onEnd} />
          </CardActions>
        </Card>
      ))}
    </Stack>
  );
}
