/**
 * The speaker control of a session with sound: mute or unmute and a volume slider, which shows 0 while muted
 * (what is heard), and while the browser wants a click or key before it plays sound, a line over the picture
 * saying so (`SoundHint`), where the eye is and where it never pushes the toolbar onto a second line. A session
 * without sound shows nothing of it.
 */
import VolumeOffIcon from '@mui/icons-material/VolumeOff';
import VolumeUpIcon from '@mui/icons-material/VolumeUp';
import Box from '@mui/material/Box';
import IconButton from '@mui/material/IconButton';
import Slider from '@mui/material/Slider';
import Stack from '@mui/material/Stack';
import Tooltip from '@mui/material/Tooltip';
import type { Sound } from '../hooks/use-sound';

const HINT_ID = 'sound-hint';

/** What the hint says while the sound waits for a gesture. */
export const SOUND_HINT = 'Sound is off: click or press any key to hear it';

/** The control; its button is named exactly "Mute" while sound plays and "Unmute" while muted. */
export function SoundControl({ sound }: { sound: Sound }) {
  if (sound.state === 'none') return null;
  const muted = sound.state === 'muted';
  return (
    <Stack ref={sound.controlRef} direction="row" spacing={1.5} sx={{ alignItems: 'center', pr: 1 }}>
      <Tooltip title={`${muted ? 'Unmute' : 'Mute'} (Ctrl+Shift+M)`}>
        <IconButton
          aria-label={muted ? 'Unmute' : 'Mute'}
          aria-describedby={sound.waitingForGesture ? HINT_ID : undefined}
          onClick={sound.toggleMute}
        >
          {muted ? <VolumeOffIcon /> : <VolumeUpIcon />}
        </IconButton>
      </Tooltip>
      <Slider
        aria-label="Volume"
        size="small"
        min={0}
        max={100}
        step={5}
        // Muted, nothing is heard: the slider says 0, and moving it up unmutes at the volume chosen.
        value={muted ? 0 : Math.round(sound.volume * 100)}
        getAriaValueText={(value) => (muted ? 'Muted' : `${value} %`)}
        onChange={(_, value) => sound.setVolume((Array.isArray(value) ? (value[0] ?? 0) : value) / 100)}
        sx={{ width: 96, flexShrink: 0 }}
      />
    </Stack>
  );
}

/** While the browser holds the sound back for a gesture: the line saying so, over the top of the picture. */
export function SoundHint({ sound }: { sound: Sound }) {
  if (sound.state === 'none' || !sound.waitingForGesture) return null;
  return (
    <Box
      id={HINT_ID}
      sx={{
        position: 'absolute',
        top: 8,
        right: 8,
        maxWidth: 'calc(100% - 16px)',
        px: 1,
        py: 0.25,
        borderRadius: 1,
        bgcolor: 'rgba(0,0,0,0.6)',
        color: 'common.white',
        typography: 'body2',
        // A click on it is a click on the picture: it reaches the application and unmutes, as anywhere else.
        pointerEvents: 'none',
        zIndex: 2,
      }}
    >
      {SOUND_HINT}
    </Box>
  );
}
