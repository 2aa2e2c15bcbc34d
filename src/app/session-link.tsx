/**
 * `/sessions/:sessionId`: the viewer, for an id that can name a session. A link with anything else in it
 * says so once, in words, rather than let the viewer ask the service again and again.
 */
import type { ReactNode } from 'react';
import { Link as RouterLink, Navigate, useLocation, useParams } from 'react-router-dom';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { isSessionId } from '../lib/session-id';

/** Renders `viewer` for a well-formed session id; a different case is fixed, anything else explained. */
export function SessionLink({ viewer }: { viewer: ReactNode }) {
  const { sessionId = '' } = useParams();
  const location = useLocation();
  if (isSessionId(sessionId)) return viewer;
  // A link retyped or passed through a tool that upper-cased it still names the session.
  if (isSessionId(sessionId.toLowerCase())) {
    const to = `/sessions/${sessionId.toLowerCase()}${location.search}${location.hash}`;
    return <Navigate to={to} replace />;
  }
  return (
    <Stack spacing={2}>
      <Typography variant="h4" component="h1">
        Session
      </Typography>
      <Alert severity="warning" sx={{ overflowWrap: 'anywhere' }}>
        This is not a session link: “{sessionId}” is not a session id. A session id looks like
        3f2b8c1e-5d4a-4b6c-9e8f-0a1b2c3d4e5f; the Sessions page lists yours.
      </Alert>
      <Button component={RouterLink} to="/sessions" variant="contained" sx={{ alignSelf: 'start' }}>
        Go to Sessions
      </Button>
    </Stack>
  );
}
