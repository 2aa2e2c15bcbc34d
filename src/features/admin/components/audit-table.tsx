/** The audit log's events, newest first: when, who, what, which session, and the rest of what was recorded. */
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import type { AuditEvent } from '../../../lib/api/list-audit-events';
import { formatWhen } from '../../../lib/format-when';
import { AUDIT_ACTIONS } from '../api/audit-filters';

/** "app: usd-viewer, scope: watch". */
export function detailText(detail: AuditEvent['detail']): string {
  return Object.entries(detail)
    .map(([name, value]) => `${name}: ${String(value)}`)
    .join(', ');
}

export function AuditTable({ events }: { events: AuditEvent[] }) {
  return (
    <TableContainer>
      <Table aria-label="Audit log" size="small">
        <TableHead>
          <TableRow>
            <TableCell>Time</TableCell>
            <TableCell>Person</TableCell>
            <TableCell>Action</TableCell>
            <TableCell>Session</TableCell>
            <TableCell>Detail</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {events.map((event, index) => (
            // Two events may share a time, a person and an action: their place in the answer tells them apart.
            <TableRow key={`${event.time}-${index}`}>
              <TableCell sx={{ whiteSpace: 'nowrap' }}>
                <time dateTime={event.time}>{formatWhen(event.time, 'medium')}</time>
              </TableCell>
              <TableCell>{event.user}</TableCell>
              <TableCell>{AUDIT_ACTIONS[event.action] ?? event.action}</TableCell>
              <TableCell>
                <Typography variant="caption" sx={{ fontFamily: 'monospace', overflowWrap: 'anywhere' }}>
                  {event.session ?? '—'}
                </Typography>
              </TableCell>
              <TableCell sx={{ overflowWrap: 'anywhere' }}>{detailText(event.detail)}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}
