/**
 * The rows of the ended sessions (CONTRACT §22): what ran, from when to when, how long, and why it ended, in
 * words. A table where there is room, a card a session on a narrow screen, as the running sessions are shown.
 */
import Card from '@mui/material/Card';
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
import type { Session } from '../../../lib/api-client';
import { formatWhen } from '../../../lib/format-when';
import { conditionBadge } from '../../../lib/session-condition';
import { whyItEnded } from '../utils/end-cause';
import { formatAge, Launched } from './session-list';

export interface EndedListProps {
  sessions: Session[];
  /** Show who each session was (an admin sees everyone's). */
  showPerson: boolean;
}

function length(session: Session): string {
  return session.duration_s === undefined ? 'unknown' : formatAge(session.duration_s * 1000);
}

function launchedOf(session: Session) {
  return {
    id: session.id,
    ids: { app: session.app, version: session.version, profile: session.profile },
  };
}

function Why({ session }: { session: Session }) {
  const why = whyItEnded(session);
  return (
    <Stack spacing={0.5}>
      <ConditionChip badge={conditionBadge(why.failed ? 'failed' : 'ended')} label={why.label} size="small" />
      <Typography variant="caption">{why.words}</Typography>
    </Stack>
  );
}

/** One row a session, for screens with room for the columns. */
export function EndedTable({ sessions, showPerson }: EndedListProps) {
  return (
    <TableContainer>
      <Table aria-label="Ended" size="small">
        <TableHead>
          <TableRow>
            <TableCell>Session</TableCell>
            {showPerson && <TableCell>Person</TableCell>}
            <TableCell>Started</TableCell>
            <TableCell>Ended</TableCell>
            <TableCell>Length</TableCell>
            <TableCell>Why it ended</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {sessions.map((session) => (
            <TableRow key={session.id}>
              <TableCell>
                <Launched row={launchedOf(session)} variant="body2" />
              </TableCell>
              {showPerson && <TableCell>{session.user ?? 'unknown'}</TableCell>}
              <TableCell>{formatWhen(session.created_at)}</TableCell>
              <TableCell>{formatWhen(session.ended_at)}</TableCell>
              <TableCell>{length(session)}</TableCell>
              <TableCell>
                <Why session={session} />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

/** One card a session, stacked, for narrow screens. */
export function EndedCards({ sessions, showPerson }: EndedListProps) {
  return (
    <Stack component="ul" aria-label="Ended" spacing={1.5} sx={{ listStyle: 'none', p: 0, m: 0 }}>
      {sessions.map((session) => (
        <Card component="li" key={session.id} variant="outlined">
          <CardContent>
            <Launched row={launchedOf(session)} variant="subtitle1" />
            <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
              {showPerson && `${session.user ?? 'unknown'}, `}
              {formatWhen(session.created_at)} to {formatWhen(session.ended_at)} ({length(session)})
            </Typography>
            <Why session={session} />
          </CardContent>
        </Card>
      ))}
    </Stack>
  );
}
