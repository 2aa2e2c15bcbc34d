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
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { ConditionChip } from '../../../components/condition-chip';
import type { SessionRow } from '../../../lib/queries/list-sessions';
import { useLaunchLabel } from '../../../lib/queries/use-launch-names';
import { conditionBadge, type ConditionBadge } from '../../../lib/session-condition';
import { ShortSessionId } from './short-session-id';
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
  /** Asks to end a session that waits or runs (after confirming). */
  onEnd: (id: string) => void;
  /** Takes a failed session off the list: nothing of it runs, so nothing is asked. */
  onRemove: (id: string) => void;
}

/**
 * The badge of a row: a 410 this browser met, or the service's condition. A failed session is never
 * "pending", whatever else the page knows of it.
 */
export function rowBadge(row: SessionRow): ConditionBadge {
  if (row.failure !== undefined) return conditionBadge('failed');
  return conditionBadge(row.session?.status.condition, row.session?.status.message);
}

/** The words under the badge: why it failed, or where it waits; a running session's badge says it all. */
function stateWords(row: SessionRow, badge: ConditionBadge): string | undefined {
  const message = row.failure ?? row.session?.status.message;
  if (badge.kind === 'failed') return message || 'The service did not say why it failed.';
  return badge.kind === 'running' ? undefined : message;
}

function State({ row }: { row: SessionRow }) {
  const badge = rowBadge(row);
  const words = stateWords(row, badge);
  return (
    <Stack spacing={0.5} sx={{ maxWidth: '40ch' }}>
      <ConditionChip badge={badge} />
      {words && (
        <Typography variant="caption" color={badge.kind === 'failed' ? 'error' : undefined}>
          {words}
        </Typography>
      )}
    </Stack>
  );
}

/** The session's name first, its short id beneath it in small type: the id is for support, not for reading. */
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
      <ShortSessionId id={row.id} />
    </Box>
  );
}

function age(row: SessionRow, now: number): string {
  const since = row.startedAt === undefined ? 'unknown' : formatAge(now - row.startedAt);
  return row.user ? `${since}, by ${row.user}` : since;
}

/** "14:05": a moment the service reported, as a time of day in the person's own form; undefined where none. */
function timeOf(iso: string | undefined): string | undefined {
  const at = Date.parse(iso ?? '');
  return Number.isNaN(at) ? undefined : new Date(at).toLocaleTimeString(undefined, { timeStyle: 'short' });
}

/**
 * The age of a session, and beneath it when it ends: at its lifetime (it can be extended), and sooner when
 * nobody watches it (the service ends a session without a viewer after its idle time).
 */
function Age({ row, now }: { row: SessionRow; now: number }) {
  const ends = timeOf(row.session?.ends_at);
  const idle = timeOf(row.session?.idle_ends_at);
  return (
    <>
      {age(row, now)}
      {ends && (
        <Typography variant="caption" component="span" sx={{ display: 'block' }}>
          Ends at {ends}
        </Typography>
      )}
      {idle && (
        <Typography variant="caption" component="span" color="warning" sx={{ display: 'block' }}>
          No viewer: ends at {idle} unless it is opened
        </Typography>
      )}
    </>
  );
}

const nowrap = { whiteSpace: 'nowrap', flexShrink: 0 } as const;

/** A session that waits or runs: its viewer, and End. A failed one has no viewer to open: Remove. */
function Actions({ row, onEnd, onRemove }: Omit<RowsProps, 'rows' | 'now'> & { row: SessionRow }) {
  if (rowBadge(row).kind === 'failed')
    return (
      <Button
        size="small"
        onClick={() => onRemove(row.id)}
        aria-label={`Remove failed session ${row.id}`}
        sx={nowrap}
      >
        Remove
      </Button>
    );
  return (
    <Stack direction="row" spacing={1}>
      <Button
        size="small"
        component={RouterLink}
        to={`/sessions/${row.id}`}
        aria-label={`Open viewer of ${row.id}`}
        sx={nowrap}
      >
        Open viewer
      </Button>
      <Button
        size="small"
        color="error"
        onClick={() => onEnd(row.id)}
        aria-label={`End session ${row.id}`}
        sx={nowrap}
      >
        End
      </Button>
    </Stack>
  );
}

/** One row a session, for screens with room for the columns. */
export function SessionTable({ rows, now, ...actions }: RowsProps) {
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
              <TableCell>
                <Age row={row} now={now} />
              </TableCell>
              <TableCell sx={{ width: '1%' }}>
                <Actions row={row} {...actions} />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

/** One card a session, stacked, for narrow screens. */
export function SessionCards({ rows, now, ...actions }: RowsProps) {
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
              Age: <Age row={row} now={now} />
            </Typography>
            <State row={row} />
          </CardContent>
          <CardActions>
            <Actions row={row} {...actions} />
          </CardActions>
        </Card>
      ))}
    </Stack>
  );
}
