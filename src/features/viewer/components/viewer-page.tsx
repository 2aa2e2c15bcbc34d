/**
 * The viewer of one session (/sessions/:sessionId, `?mode=watch` for watch-only), or of a shared watch link
 * (/watch#..., see watch-page.tsx). The page follows the session (the one polling of it): while it waits
 * for a GPU it shows the queue, once ready it hands the routes to the Player, and when the service says it
 * is gone it says it has ended. This is the one component that meets the Player: it creates it in an effect
 * whose cleanup disconnects, and hands plain props down.
 */
import Box from '@mui/material/Box';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useParams, useSearchParams } from 'react-router-dom';
import {
  Player,
  type KeyboardCapture,
  type MessageRecord,
  type PlayerState,
  type StatsSample,
} from '../../../player';
import { doorOf, viewerTicket } from '../../../lib/api/viewer-connection';
import type { Session } from '../../../lib/api-client';
import type { WatchLinkData } from '../api/watch-link';
import { forgetSharedLink } from '../api/shared-links';
import { readPictureChoice, savePictureChoice, type PictureChoice } from '../api/picture-choice';
import { launchLabel } from '../../../lib/launch-label';
import { sessionEnd } from '../../../lib/session-end';
import { isTransientFailure, useWatchedSession } from '../../../lib/queries/session-queries';
import { useEndSession } from '../../../lib/queries/use-end-session';
import { EndSessionDialog } from '../../../components/end-session-dialog';
import { useSessionTitle } from '../hooks/use-session-title';
import { useTakesStage } from '../hooks/use-takes-stage';
import { useStageTop } from '../hooks/use-stage-top';
import { SHORT_LANDSCAPE } from '../../../lib/screens';
import { useSound } from '../hooks/use-sound';
import { usePanelsAfterConnecting } from '../hooks/use-panels-after-connecting';
import { useSessionFiles } from '../hooks/use-session-files';
import { usePeople } from '../hooks/use-people';
import { isViewerShortcut, useViewerShortcuts } from '../hooks/use-shortcuts';
import { KEYBOARD_HINT_ID, KeyboardHint } from './keyboard-hint';
import { LatencyChip } from './latency-chip';
import { ClipboardPanel } from './clipboard-panel';
import { FilesDropOverlay } from './files-drop-overlay';
import { FilesPanel } from './files-panel';
import { ControlChip } from './control-chip';
import { MessagesPanel } from './messages-panel';
import { PendingSession } from './pending-session';
import { PlayerStatus } from './player-status';
import { RemotePointer } from './remote-pointer';
import { SoundHint } from './sound-control';
import { StatsOverlay } from './stats-overlay';
import { ViewerToolbar } from './viewer-toolbar';
import { WatchLink } from './watch-link';

/** Text cut to one line with an ellipsis, where a line more would take the picture's height. */
const ONE_LINE = { whiteSpace: 'nowrap', overflow: 'hidden', textOverflow: 'ellipsis' } as const;

const STATE_LABEL: Record<PlayerState['kind'], string> = {
  idle: 'Idle',
  connecting: 'Connecting',
  'waiting-for-video': 'Waiting for video',
  playing: 'Playing',
  stalled: 'Picture stopped',
  reconnecting: 'Reconnecting',
  failed: 'Failed',
  ended: 'Ended',
  withdrawn: 'Sharing stopped',
  removed: 'Removed',
  disconnected: 'Disconnected',
};

/** The limits of the stream size a picture choice gives the player: none but the profile's for "Fit the window". */
function resizeOf(choice: PictureChoice) {
  return choice.max ? { maxWidth: choice.max.width, maxHeight: choice.max.height } : {};
}

/** The page's one word for the state, beside the session's id. */
function stateLabel(state: PlayerState): string {
  return state.kind === 'ended' && state.failed ? 'Failed' : STATE_LABEL[state.kind];
}

/** The launch form filled in with what a session ran, as far as the service said. */
function relaunchHref(session: Session | undefined): string {
  if (!session?.app) return '/launch';
  const fields = { app: session.app, version: session.version, profile: session.profile };
  const filled = Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return `/launch?${new URLSearchParams(filled).toString()}`;
}

/**
 * The viewer page (default export: the router lazy-loads it). `shared`: a watch link's data, watched
 * without the API (the person may have no token): its routes and ticket are all it has.
 */
export default function ViewerPage({ shared }: { shared?: WatchLinkData } = {}) {
  const params = useParams();
  const sessionId = shared?.session ?? params.sessionId ?? '';
  const [search] = useSearchParams();
  const watchOnly = shared !== undefined || search.get('mode') === 'watch';
  const videoRef = useRef<HTMLVideoElement>(null);
  const stageRef = useRef<HTMLDivElement>(null);
  useStageTop(stageRef);
  const playerRef = useRef<Player | undefined>(undefined);
  const [state, setState] = useState<PlayerState>({ kind: 'idle' });
  const [history, setHistory] = useState<StatsSample[]>([]);
  const [messages, setMessages] = useState<MessageRecord[]>([]);
  const [showStats, setShowStats] = useState(false);
  const [fullscreen, setFullscreen] = useState(false);
  const [confirmEnd, setConfirmEnd] = useState(false);
  const [keyboard, setKeyboard] = useState<KeyboardCapture>('idle');
  const [hasSound, setHasSound] = useState(false);
  // The picture size this browser chose; the player created later starts with the latest.
  const [picture, setPicture] = useState(readPictureChoice);
  const pictureRef = useRef(picture);
  const choosePicture = useCallback((choice: PictureChoice) => {
    savePictureChoice(choice);
    pictureRef.current = choice;
    setPicture(choice);
    playerRef.current?.setResize(resizeOf(choice));
  }, []);
  const sound = useSound(videoRef, hasSound);
  const people = usePeople(watchOnly);
  const { listen } = people.link;
  const watched = useWatchedSession(sessionId, !shared);
  const session = watched.data?.session;
  const endedReason = shared ? undefined : watched.data?.ended;
  // What the player connects to: the link's routes, or the session's once it is ready and until it ends.
  const routes = shared
    ? shared.routes
    : endedReason === undefined && session?.status.condition === 'ready'
      ? session.routes
      : undefined;
  // A string, so that each poll's new (equal) routes keep the same player.
  const routesKey = routes === undefined ? undefined : JSON.stringify(routes);
  const waiting = !shared && endedReason === undefined && routesKey === undefined;

  useEffect(() => {
    const video = videoRef.current;
    if (!video || routesKey === undefined) return undefined;
    performance.mark('sg:viewer-mount');
    const mode = watchOnly ? 'watch' : 'control';
    const player = new Player({
      video,
      mode,
      routes: JSON.parse(routesKey),
      // Asked for at each connection: a control ticket lasts only until its viewer has connected.
      ticket: shared ? async () => shared.ticket : () => viewerTicket(sessionId, mode),
      door: doorOf(sessionId),
      // A link's watcher has no API to follow the session by: the player takes the service's word for its end.
      sharedLink: shared !== undefined,
      keepKey: isViewerShortcut,
      resize: resizeOf(pictureRef.current),
    });
    playerRef.current = player;
    const unsubscribe = [
      player.addEventListener('state', setState),
      player.addEventListener('stats', () => setHistory(player.statsHistory)),
      // The log keeps the latest 200 events; a chatty application must not grow the page without bound.
      player.addEventListener('message', (m) => setMessages((list) => [...list.slice(-199), m])),
      player.addEventListener('keyboard', setKeyboard),
      player.addEventListener('sound', setHasSound),
      listen(player),
    ];
    player.connect();
    // A closed tab runs no cleanup; this still tells the application that the viewer left.
    const onPageHide = () => player.disconnect();
    window.addEventListener('pagehide', onPageHide);
    return () => {
      window.removeEventListener('pagehide', onPageHide);
      for (const off of unsubscribe) off();
      player.disconnect();
      playerRef.current = undefined;
      setHasSound(false);
    };
  }, [sessionId, watchOnly, shared, routesKey, listen]);

  // A lost connection may mean a lost session: ask now rather than at the next poll.
  const { refetch } = watched;
  useEffect(() => {
    if (!shared && state.kind === 'reconnecting') void refetch();
  }, [shared, state.kind, refetch]);

  useEffect(() => {
    const onChange = () => setFullscreen(document.fullscreenElement === stageRef.current);
    document.addEventListener('fullscreenchange', onChange);
    return () => document.removeEventListener('fullscreenchange', onChange);
  }, []);

  const toggleFullscreen = useCallback(() => {
    if (document.fullscreenElement) void document.exitFullscreen().catch(() => undefined);
    else void stageRef.current?.requestFullscreen().catch(() => undefined);
  }, []);
  useViewerShortcuts({
    toggleStats: () => setShowStats((s) => !s),
    toggleFullscreen,
    toggleMute: sound.toggleMute,
  });

  const end = useEndSession();

  // The reason said once, in words, under "Failed" or "Ended".
  const endWords = endedReason === undefined ? undefined : sessionEnd(endedReason, session !== undefined);
  const shown: PlayerState = endWords ? { kind: 'ended', ...endWords } : state;
  const connected = !['disconnected', 'ended', 'withdrawn', 'removed', 'failed', 'idle'].includes(shown.kind);
  // Nothing more can come: the session is over, the link's owner stopped sharing it, or an owner removed this viewer.
  const ended = shown.kind === 'ended' || shown.kind === 'withdrawn' || shown.kind === 'removed';
  // Once the stream is gone, nothing over it is about it any more: no keyboard to release, no figures.
  const capture = connected ? keyboard : 'idle';
  const files = useSessionFiles({
    sessionId,
    session,
    enabled: !watchOnly && !ended && !waiting,
    canSend: shown.kind === 'playing',
    messages,
    send: (type, payload) => playerRef.current?.sendMessage(type, payload) ?? false,
  });

  // The links of a session that is over play no more: there is nothing left to stop sharing.
  const over = endedReason !== undefined;
  useEffect(() => {
    if (over && !watchOnly) forgetSharedLink(sessionId);
  }, [over, watchOnly, sessionId]);

  // The end of a session seen fullscreen leaves a black screen with one line: the page says it better.
  useEffect(() => {
    if (ended && document.fullscreenElement && document.fullscreenElement === stageRef.current)
      void document.exitFullscreen().catch(() => undefined);
  }, [ended]);
  const panels = usePanelsAfterConnecting(['idle', 'connecting', 'waiting-for-video'].includes(shown.kind));
  const refused = watched.isError && !isTransientFailure(watched.error);
  const label = waiting ? (refused ? 'Failed' : 'Waiting') : stateLabel(shown);
  const title = useSessionTitle(sessionId, session, !shared);
  const stageControls = useTakesStage(session, shared !== undefined) && !watchOnly;
  // A watch link carries the name its maker saw: its page asks the API nothing.
  const named = shared ? shared.title : title && launchLabel(title.app, title.version, title.profile);
  const heading = named
    ? `${watchOnly ? 'Watching ' : ''}${named}`
    : watchOnly
      ? 'Watching session'
      : 'Session';
  return (
    <Stack spacing={2}>
      <Stack
        direction={{ xs: 'column', md: 'row' }}
        spacing={2}
        sx={{
          justifyContent: 'space-between',
          // A phone sideways: the heading and the toolbar on one row, so that the picture keeps the height.
          [SHORT_LANDSCAPE]: {
            flexDirection: 'row',
            alignItems: 'center',
            '& > :not(style) ~ :not(style)': { mt: 0 },
          },
        }}
      >
        <Box sx={{ minWidth: 0 }}>
          <Typography
            variant="h5"
            component="h1"
            sx={{ [SHORT_LANDSCAPE]: { fontSize: '1.1rem', ...ONE_LINE } }}
          >
            {heading}
          </Typography>
          {/* One line whatever comes on it (the latency, a long id beside a wide toolbar): the picture below never moves. */}
          <Typography variant="body2" color="text.secondary" sx={ONE_LINE}>
            {/* A phone sideways keeps the state in its one line; the id is in the address. */}
            <Box component="span" sx={{ [SHORT_LANDSCAPE]: { display: 'none' } }}>
              {sessionId} ·{' '}
            </Box>
            <span data-testid="player-state">{label}</span>
            {connected && <ControlChip people={people} />}
            <LatencyChip sample={shown.kind === 'playing' ? history.at(-1) : undefined} />
          </Typography>
        </Box>
        {!waiting && (
          <ViewerToolbar
            session={shared ? undefined : session}
            watchOnly={watchOnly}
            people={people}
            showStats={showStats}
            fullscreen={fullscreen}
            connected={connected}
            ended={ended}
            sound={sound}
            picture={picture}
            onPicture={choosePicture}
            onToggleStats={() => setShowStats((s) => !s)}
            onToggleFullscreen={toggleFullscreen}
            onPointerLock={() => void videoRef.current?.requestPointerLock?.()}
            onDisconnect={() => playerRef.current?.disconnect()}
            onReconnect={() => playerRef.current?.connect()}
            onEnd={() => setConfirmEnd(true)}
            files={
              files.enabled ? { open: files.open, onToggle: () => files.setOpen(!files.open) } : undefined
            }
          />
        )}
      </Stack>
      {waiting ? (
        <PendingSession id={sessionId} watched={watched} watchOnly={watchOnly} />
      ) : (
        <>
          <Box
            ref={stageRef}
            {...files.dropTarget}
            // For end-to-end tests, with the video's own `muted`: none, muted or on.
            data-sound={sound.state}
            sx={{
              position: 'relative',
              width: '100%',
              height: fullscreen ? '100vh' : 'min(70vh, 56.25vw)',
              // The height left below it on a phone sideways (use-stage-top.ts), so the whole picture shows.
              ...(!fullscreen && {
                [SHORT_LANDSCAPE]: { height: 'calc(100dvh - var(--stage-top, 0px) - 8px)' },
              }),
              bgcolor: 'common.black',
              borderRadius: fullscreen ? 0 : 1,
              overflow: 'hidden',
            }}
          >
            <video
              ref={videoRef}
              // A watcher given control has the keyboard and pointer of an owner; an owner without it, none.
              aria-label={
                people.inControl
                  ? 'Session stream'
                  : `Session stream (${watchOnly ? 'watch only' : 'someone else is in control'})`
              }
              tabIndex={people.inControl ? 0 : -1}
              aria-describedby={capture === 'idle' ? undefined : KEYBOARD_HINT_ID}
              autoPlay
              muted
              playsInline
              style={{
                width: '100%',
                height: '100%',
                objectFit: 'contain',
                display: 'block',
                touchAction: 'none',
              }}
            />
            <KeyboardHint capture={capture} />
            <SoundHint sound={sound} />
            <RemotePointer people={people} video={videoRef} />
            {showStats && !ended && <StatsOverlay history={history} />}
            <PlayerStatus
              state={shown}
              relaunch={watchOnly ? undefined : relaunchHref(session)}
              sessions={!shared}
              onRetry={() => playerRef.current?.retry()}
              onReconnect={() => playerRef.current?.connect()}
            />
            <FilesDropOverlay dragging={files.dragging} />
          </Box>
          <FilesPanel files={files} />
          {panels && !watchOnly && !ended && <WatchLink sessionId={sessionId} title={named} />}
          {shared && !ended && !people.inControl && (
            <Typography variant="body2" color="text.secondary">
              You are watching through a shared link: you see the stream, and nothing you do reaches the
              application unless you are given control (ask for it under People).
            </Typography>
          )}
          {/* The clipboard follows control: a watcher given control shares it too. */}
          {panels && (!watchOnly || people.inControl) && !ended && (
            <ClipboardPanel
              messages={messages}
              canSend={shown.kind === 'playing'}
              send={(type, payload) => playerRef.current?.sendMessage(type, payload) ?? false}
            />
          )}
          {panels && (
            <MessagesPanel
              messages={messages}
              canSend={shown.kind === 'playing'}
              ended={ended}
              stageControls={stageControls}
              send={(type, payload) => playerRef.current?.sendMessage(type, payload) ?? false}
            />
          )}
        </>
      )}
      <EndSessionDialog
        sessionId={confirmEnd ? sessionId : undefined}
        name={named}
        ending={end.isPending}
        error={end.error}
        hint="To leave it running, use Disconnect instead."
        onCancel={() => setConfirmEnd(false)}
        onConfirm={() =>
          end.mutate(sessionId, {
            // The page learns of the end with the session (see useEndSession).
            onSuccess: () => setConfirmEnd(false),
          })
        }
      />
    </Stack>
  );
}
