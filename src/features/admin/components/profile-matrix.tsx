import Box from '@mui/material/Box';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { useNarrow } from '../../../components/use-narrow';
import type { Profile } from '../../../lib/api-client';
import type { CellStatus, ProfileCell, ProfileRow } from '../api/check-profiles';

const colors: Record<CellStatus, 'success' | 'default' | 'warning' | 'error'> = {
  ok: 'success',
  '404': 'default',
  '403': 'warning',
  '422': 'warning',
  error: 'error',
};

function StatusChip({ row, cell }: { row: ProfileRow; cell: ProfileCell }) {
  return (
    <Tooltip title={cell.reason}>
      <Chip
        label={cell.status}
        color={colors[cell.status]}
        aria-label={`${row.app} ${row.version} ${cell.profile}: ${cell.status}, ${cell.reason}`}
      />
    </Tooltip>
  );
}

/** A narrow screen has no room for a column a profile: one card an application version, its profiles stacked. */
function ProfileCards({ rows }: { rows: ProfileRow[] }) {
  return (
    <Stack
      component="ul"
      aria-label="Profile availability"
      spacing={1.5}
      sx={{ listStyle: 'none', p: 0, m: 0 }}
    >
      {rows.map((row) => (
        <Card component="li" key={`${row.app}@${row.version}`} variant="outlined">
          <CardContent>
            <Typography variant="subtitle1" component="h2" sx={{ overflowWrap: 'anywhere' }}>
              {row.appName} ({row.app}) {row.version}
            </Typography>
            {row.error && (
              <Typography variant="caption" color="error" component="p">
                {row.error}
              </Typography>
            )}
            <Stack component="dl" spacing={0.5} sx={{ m: 0 }}>
              {row.cells.map((cell) => (
                <Stack key={cell.profile} direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                  <Typography component="dt" variant="body2" sx={{ flexGrow: 1, overflowWrap: 'anywhere' }}>
                    {cell.profile}
                  </Typography>
                  <Box component="dd" sx={{ m: 0 }}>
                    <StatusChip row={row} cell={cell} />
                  </Box>
                </Stack>
              ))}
            </Stack>
          </CardContent>
        </Card>
      ))}
    </Stack>
  );
}

/** Rows of application versions, columns of profiles, a status in every cell; cards on a narrow screen. */
export function ProfileMatrix({ profiles, rows }: { profiles: Profile[]; rows: ProfileRow[] }) {
  const narrow = useNarrow();
  if (rows.length === 0) return <Typography>No application version matches.</Typography>;
  if (narrow) return <ProfileCards rows={rows} />;
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
                  <StatusChip row={row} cell={cell} />
                </TableCell>
              ))}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}
