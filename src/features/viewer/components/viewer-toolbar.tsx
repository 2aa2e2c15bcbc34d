/** The viewer's controls; every one has an accessible name and, where it has one, its shortcut in the tooltip. */
import BarChartIcon from '@mui/icons-material/BarChart';
import FullscreenIcon from '@mui/icons-material/Fullscreen';
import FullscreenExitIcon from '@mui/icons-material/FullscreenExit';
import MouseIcon from '@mui/icons-material/Mouse';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import Tooltip from '@mui/material/Tooltip';
import type { Session } from '../../../lib/api-client';
import type { People } from '../hooks/use-people';
import type { Sound } from '../hooks/use-sound';
import type { PictureChoice } from '../api/picture-choice';
import { LifetimeCountdown } from './lifetime-countdown';
import { FilesButton } from './files-button';
import { PeopleButton } from './people-button';
import { PictureMenu } from './picture-menu';
import { SoundControl } from './sound-control';

/** The toolbar above the video; once the session has ended, only what still applies to the page. */
export function ViewerToolbar(props: {
  /** The session as the service describes it; absent for a watch link, which asks the API nothing. */
  session?: Session | undefined;
  watchOnly: boolean;
  people: People;
  showStats: boolean;
  fullscreen: boolean;
  connected: boolean;
  ended: boolean;
  sound: Sound;
  picture: PictureChoice;
  onPicture: (choice: PictureChoice) => void;
  onToggleStats: () => void;
  onToggleFullscreen: () => void;
  onPointerLock: () => void;
  onDisconnect: () => void;
  onReconnect: () => void;
  onEnd: () => void;
  /** The Files panel's button: the owner's viewer only. */
  files?: { open: boolean; onToggle: () => void } | undefined;
}) {
  return (
    // One line from a desktop's width up (the sound's hint is over the picture, not here); a phone's wraps.
    <Stack
      direction="row"
      spacing={1}
      useFlexGap
      sx={{ alignItems: 'center', flexWrap: { xs: 'wrap', md: 'nowrap' }, flexShrink: 0 }}
    >
      {/* Its end at its lifetime, near it; only its owner or an admin extends it, never a watcher. */}
      {!props.ended && props.session && (
        <LifetimeCountdown session={props.session} canExtend={!props.watchOnly} />
      )}
      {/* Once the session has ended there is no stream to hear, measure or see bigger. */}
      {!props.ended && (
        <>
          <PeopleButton people={props.people} />
          <SoundControl sound={props.sound} />
          <Tooltip title="Statistics (Ctrl+Shift+S)">
            <IconButton
              aria-label={props.showStats ? 'Hide statistics' : 'Show statistics'}
              aria-pressed={props.showStats}
              onClick={props.onToggleStats}
            >
              <BarChartIcon />
            </IconButton>
          </Tooltip>
          <Tooltip title="Fullscreen (Ctrl+Shift+F)">
            <IconButton
              aria-label={props.fullscreen ? 'Leave fullscreen' : 'Fullscreen'}
              onClick={props.onToggleFullscreen}
            >
              {props.fullscreen ? <FullscreenExitIcon /> : <FullscreenIcon />}
            </IconButton>
          </Tooltip>
        </>
      )}
      {/* The stream's size follows the controlling viewer: a watcher has no say in it. */}
      {!props.watchOnly && !props.ended && <PictureMenu choice={props.picture} onChoose={props.onPicture} />}
      {!props.watchOnly && !props.ended && (
        <Tooltip title="Capture the pointer (Esc releases it)">
          <span>
            <IconButton aria-label="Lock pointer" onClick={props.onPointerLock} disabled={!props.connected}>
              <MouseIcon />
            </IconButton>
          </span>
        </Tooltip>
      )}
      {props.files && !props.ended && <FilesButton {...props.files} />}
      {props.ended ? null : props.connected ? (
        <Button variant="outlined" onClick={props.onDisconnect} sx={{ whiteSpace: 'nowrap' }}>
          Disconnect
        </Button>
      ) : (
        <Button variant="outlined" onClick={props.onReconnect} sx={{ whiteSpace: 'nowrap' }}>
          Reconnect
        </Button>
      )}
      {!props.watchOnly && !props.ended && (
        <Button variant="contained" color="error" onClick={props.onEnd} sx={{ whiteSpace: 'nowrap' }}>
          End session
        </Button>
      )}
    </Stack>
  );
}
