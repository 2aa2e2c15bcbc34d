/**
 * The sessions page's past (CONTRACT §22): the person's sessions that ended in the last 30 days, newest first,
 * and for an admin everyone's, or one person's (`?person=` in the address, so that the view can be shared).
 */
import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { ErrorAlert } from '../../../components/error-alert';
import { useNarrow } from '../../../components/use-narrow';
import { accessQueries } from '../../../lib/queries/access-queries';
import { endedWithinWindow, sessionQueries } from '../../../lib/queries/session-queries';
import { EndedCards, EndedTable } from './ended-list';

/** An admin's choice of whose ended sessions to see; empty for everyone's. */
function PersonFilter({ person, onChange }: { person: string; onChange: (person: string) => void }) {
  const [draft, setDraft] = useState(person);
  return (
    <Stack
      component="form"
      role="search"
      aria-label="Ended sessions of one person"
      direction="row"
      spacing={1}
      useFlexGap
      sx={{ flexWrap: 'wrap', alignItems: 'center', mb: 2 }}
      onSubmit={(e) => {
        e.preventDefault();
        onChange(draft.trim());
      }}
    >
      <TextField
        size="small"
        label="Person"
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        helperText="A user name, e.g. alice; empty for everyone"
      />
      <Button type="submit" variant="outlined">
        Filter
      </Button>
      {person !== '' && (
        <Button
          onClick={() => {
            setDraft('');
            onChange('');
          }}
        >
          Everyone
        </Button>
      )}
    </Stack>
  );
}

export function EndedSessions() {
  const [params, setParams] = useSearchParams();
  const narrow = useNarrow();
  // The admin's filter and column; a person who is not an admin sees their own sessions only.
  const admin = useQuery({ ...accessQueries.admin(), throwOnError: false }).data === true;
  const person = admin ? (params.get('person') ?? '') : '';
  const ended = useInfiniteQuery({ ...sessionQueries.ended(person || undefined), throwOnError: false });
  const now = Date.now();
  const pages = ended.data?.pages ?? [];
  const sessions = pages.flatMap((page) => page.items).filter((s) => endedWithinWindow(s, now));
  const kept = pages.every((page) => page.kept);
  const List = narrow ? EndedCards : EndedTable;

  const choose = (next: string) =>
    setParams(
      (old) => {
        const out = new URLSearchParams(old);
        if (next === '') out.delete('person');
        else out.set('person', next);
        return out;
      },
      { replace: true },
    );

  return (
    <Box component="section" aria-labelledby="ended-heading" sx={{ mt: 4 }}>
      <Typography id="ended-heading" variant="h5" component="h2" gutterBottom>
        Ended
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 2 }}>
        {person !== ''
          ? `Sessions of ${person} that ended in the last 30 days, newest first.`
          : admin
            ? 'Everyone’s sessions that ended in the last 30 days, newest first.'
            : 'Your sessions that ended in the last 30 days, newest first.'}
      </Typography>
      {admin && <PersonFilter key={person} person={person} onChange={choose} />}
      {ended.isPending && <CircularProgress aria-label="Loading ended sessions" />}
      {ended.isError && !ended.data && (
        <ErrorAlert error={ended.error} onRetry={() => void ended.refetch()} />
      )}
      {ended.data && !kept && <Typography>This service does not keep ended sessions.</Typography>}
      {ended.data && kept && sessions.length === 0 && (
        <Typography>Nothing has ended in the last 30 days.</Typography>
      )}
      {sessions.length > 0 && <List sessions={sessions} showPerson={admin} />}
      {ended.hasNextPage && (
        <Button sx={{ mt: 1 }} onClick={() => void ended.fetchNextPage()} disabled={ended.isFetchingNextPage}>
          {ended.isFetchingNextPage ? 'Loading older sessions…' : 'Show older sessions'}
        </Button>
      )}
    </Box>
  );
}
