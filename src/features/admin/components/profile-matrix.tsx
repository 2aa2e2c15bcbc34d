import { useEffect, useState } from 'react';
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
import { useNarrow } from '../../../components/use-narrow';
import type { Profile } from '../../../lib/api-client';
import type { AvailabilityRow } from '../api/get-availability';
import { AvailabilityCell, type TryProps } from './availability-cell';
import { useOutcomeChanges } from './use-outcome-changes';

/** `Date.now()`, again every 30 s, so that "2 min ago" moves on. */
function useMinuteClock(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

function RowName({ row }: { row: AvailabilityRow }) {
  return (
    <>
      {row.appName} {row.version}
      <Typography variant="caption" color="text.secondary" component="span" sx={{ display: 'block' }}>
        {row.app}
      </Typography>
      {row.error && (
        <Typography variant="caption" color="error" component="span" sx={{ display: 'block' }}>
          {row.error}
        </Typography>
      )}
    </>
  );
}

const key = (row: AvailabilityRow) => `${row.app}@${row.version}`;

/** A narrow screen has no room for a column a profile: one card an application version, its profiles stacked. */
function AvailabilityCards({
  profiles,
  rows,
  now,
  ...tryProps
}: TryProps & { profiles: Profile[]; rows: AvailabilityRow[]; now: number }) {
  return (
    <Stack
      component="ul"
      aria-label="Profile availability"
      spacing={1.5}
      sx={{ listStyle: 'none', p: 0, m: 0 }}
    >
      {rows.map((row) => (
        <Card component="li" key={key(row)} variant="outlined">
          <CardContent>
            <Typography variant="subtitle1" component="h2" sx={{ overflowWrap: 'anywhere' }}>
              <RowName row={row} />
            </Typography>
            <Stack component="dl" spacing={1} sx={{ m: 0 }}>
              {profiles.map((profile) => (
                <Stack key={profile.id} direction="row" spacing={1} sx={{ alignItems: 'flex-start' }}>
                  <Typography component="dt" variant="body2" sx={{ flexGrow: 1, overflowWrap: 'anywhere' }}>
                    {profile.name}
                  </Typography>
                  <Typography component="dd" sx={{ m: 0 }}>
                    <AvailabilityCell row={row} profile={profile} now={now} {...tryProps} />
                  </Typography>
                </Stack>
              ))}
            </Stack>
          </CardContent>
        </Card>
      ))}
    </Stack>
  );
}

/**
 * Rows of application versions, columns of profiles (names, ids beneath), and in every cell whether the
 * profile applies, with a Try for those that do; cards on a narrow screen. Re-renders when a Try records
 * an outcome, here or in another tab.
 */
export function ProfileMatrix({
  profiles,
  rows,
  ...tryProps
}: TryProps & { profiles: Profile[]; rows: AvailabilityRow[] }) {
  const narrow = useNarrow();
  const now = useMinuteClock();
  useOutcomeChanges();
  if (rows.length === 0) return <Typography>No application version matches.</Typography>;
  if (narrow) return <AvailabilityCards profiles={profiles} rows={rows} now={now} {...tryProps} />;
  return (
    <TableContainer sx={{ maxHeight: '70vh' }}>
      <Table stickyHeader size="small" aria-label="Profile availability">
        <TableHead>
          <TableRow>
            <TableCell component="th" scope="col">
              Application version
            </TableCell>
            {profiles.map((p) => (
              <TableCell key={p.id} component="th" scope="col" title={p.description}>
                {p.name}
                <Typography
                  variant="caption"
                  color="text.secondary"
                  component="span"
                  sx={{ display: 'block' }}
                >
                  {p.id}
                </Typography>
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((row) => (
            <TableRow key={key(row)}>
              <TableCell component="th" scope="row">
                <RowName row={row} />
              </TableCell>
              {profiles.map((profile) => (
                <TableCell key={profile.id}>
                  <AvailabilityCell row={row} profile={profile} now={now} {...tryProps} />
                </TableCell>
              ))}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}
