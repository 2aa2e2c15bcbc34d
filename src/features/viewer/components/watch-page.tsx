/**
 * `/watch#session=...&ticket=...&routes=...`: a shared watch-only link. It needs no API token and makes no
 * API call: the fragment holds what the player needs, and the ticket in it grants watching only.
 */
import Alert from '@mui/material/Alert';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useMemo } from 'react';
import { useLocation } from 'react-router-dom';
import { decodeWatchLink } from '../api/watch-link';
import ViewerPage from './viewer-page';

/** The watch page (default export: the router lazy-loads it). */
export default function WatchPage() {
  const { hash } = useLocation();
  // One object per link, so that the player is not rebuilt on every render.
  const link = useMemo(() => decodeWatchLink(hash), [hash]);
  if ('problem' in link) {
    return (
      <Stack spacing={2}>
        <Typography variant="h5" component="h1">
          Watch a session
        </Typography>
        <Alert severity="warning">{link.problem}</Alert>
      </Stack>
    );
  }
  return <ViewerPage shared={link} />;
}
