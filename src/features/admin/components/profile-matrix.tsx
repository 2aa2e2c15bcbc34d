import Chip from '@mui/material/Chip';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import type { Profile } from '../../../lib/api-client';
import type { CellStatus, ProfileRow } from '../api/check-profiles';

const colors: Record<CellStatus, 'success' | 'default' | 'warning' | 'error'> = {
  ok: 'success',
  '404': 'default',
  '403': 'warning',
  '422': 'warning',
  error: 'error',
};

/** Rows of application versions, columns of profiles, a status in every cell. */
export function ProfileMatrix({ profiles, rows }: { profiles: Profile[]; rows: ProfileRow[] }) {
  if (rows.length === 0) return <Typography>No application version matches.</Typography>;
  return (
    <TableContainer sx={{ maxHeight: '70vh' }}>
      <Table stickyHeader size="small" aria-label="Profile availability">
        <TableHead>
          <TableRow>
            <TableCell>Application</TableCell>
            <TableCell>Version</TableCell>
            {profiles.map((p) => (
              <TableCell key={p.id} title={p.description}>
                {p.id}
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((row) => (
            <TableRow key={`${row.app}@${row.version}`}>
              <TableCell component="th" scope="row">
                {row.appName} ({row.app})
              </TableCell>
              <TableCell>
                {row.version}
                {row.error && (
                  <Typography variant="caption" color="error" component="p">
                    {row.error}
                  </Typography>
                )}
              </TableCell>
              {row.cells.map((cell) => (
                <TableCell key={cell.profile} data-profile={cell.profile}>
                  <Tooltip title={cell.reason}>
                    <Chip
                      label={cell.status}
                      color={colors[cell.status]}
                      aria-label={`${row.app} ${row.version} ${cell.profile}: ${cell.status}, ${cell.reason}`}
                    />
                  </Tooltip>
                </TableCell>
              ))}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}
