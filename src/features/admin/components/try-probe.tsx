import { useEffect, useRef, useState } from 'react';
import Box from '@mui/material/Box';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { doorOf, viewerTicket } from '../../../lib/api/viewer-connection';
import { describeError } from '../../../lib/error-text';
import { isTransientFailure, useWatchedSession } from '../../../lib/queries/session-queries';
import { sessionEnd } from '../../../lib/session-end';
import { Player, type PlayerState } from '../../../player';
import type { TryResult } from '../utils/try-queue';

/** What a Try is doing, for the page to show. */
export function probeStage(message: string | undefined, player: PlayerState['kind'] | undefined): string {
  if (player === 'waiting-for-video') return 'Waiting for the first frame';
  if (player !== undefined && player !== 'idle') return 'Connecting to the stream';
  return message ?? 'Launching';
}

/**
 * Follows a Try's session with the portal's one polling policy until it is ready, then plays it in a small
 * muted video with the portal's player (watch only: it sends no input and asks for no size) and reports the
 * first frame, or why there will be none: the session failed or ended, the service refused, or the player
 * gave up. The page's timeout covers a session that never gets there.
 */
export function TryProbe({
  sessionId,
  onResult,
}: {
  sessionId: string;
  onResult: (result: TryResult) => void;
}) {
  const videoRef = useRef<HTMLVideoElement>(null);
  const watched = useWatchedSession(sessionId);
  const [player, setPlayer] = useState<PlayerState>({ kind: 'idle' });
  const session = watched.data?.session;
  const ended = watched.data?.ended;
  const routes = ended === undefined && session?.status.condition === 'ready' ? session.routes : undefined;
  const routesKey = routes === undefined ? undefined : JSON.stringify(routes);
  // The latest callbacks, so that a new one from the page does not make a new player.
  const report = useRef(onResult);
  useEffect(() => {
    report.current = onResult;
  }, [onResult]);

  const refused =
    watched.isError && !isTransientFailure(watched.error) ? describeError(watched.error) : undefined;
  useEffect(() => {
    if (ended !== undefined) report.current({ kind: 'failed', reason: sessionEnd(ended, true, true).reason });
    else if (refused !== undefined) report.current({ kind: 'failed', reason: refused });
  }, [ended, refused]);

  const stage = probeStage(session?.status.message, routesKey === undefined ? undefined : player.kind);

  useEffect(() => {
    const video = videoRef.current;
    if (!video || routesKey === undefined) return undefined;
    const p = new Player({
      video,
      mode: 'watch',
      routes: JSON.parse(routesKey),
      ticket: () => viewerTicket(sessionId, 'watch'),
      door: doorOf(sessionId),
      resize: { enabled: false },
    });
    const off = p.addEventListener('state', (state) => {
      setPlayer(state);
      if (state.kind !== 'playing' && state.kind !== 'failed') return;
      // The viewer leaves before the page ends the session, so that its goodbye finds the application.
      p.disconnect();
      report.current(state.kind === 'playing' ? { kind: 'frame' } : { kind: 'failed', reason: state.reason });
    });
    p.connect();
    return () => {
      off();
      p.disconnect();
    };
  }, [sessionId, routesKey]);

  return (
    <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center' }}>
      <Box
        component="video"
        ref={videoRef}
        aria-hidden
        tabIndex={-1}
        autoPlay
        muted
        playsInline
        sx={{ width: 96, height: 54, bgcolor: 'black', borderRadius: 0.5, flexShrink: 0 }}
      />
      <Typography variant="body2">{stage}</Typography>
    </Stack>
  );
}
