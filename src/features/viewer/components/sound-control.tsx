/**
 * The speaker control of a session with sound: mute or unmute, a volume slider, and while the browser wants a
 * click or key before it plays sound, a line saying so. A session without sound shows nothing of it.
 */
import VolumeOffIcon from '@mui/icons-material/VolumeOff';
import VolumeUpIcon from '@mui/icons-material/VolumeUp';
import IconButton from '@mui/material/IconButton';
import Slider from '@mui/material/Slider';
import Stack from '@mui/material/Stack';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import type { Sound } from '../hooks/use-sound';

const HINT_ID = 'sound-hint';

/** What the hint says while the sound waits for a gesture. */
export const SOUND_HINT = 'Sound is off: click or press any key to hear it';

/** The control; its button is named exactly "Mute" while sound plays and "Unmute" while muted. */
export function SoundControl({ sound }: { sound: Sound }) {
  if (sound.state === 'none') return null;
  const muted = sound.state === 'muted';
  return (
    <Stack ref={sound.controlRef} direction="row" spacing={1} sx={{ alignItems: 'center' }}>
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
        value={Math.round(sound.volume * 100)}
        getAriaValueText={(value) => `${value} %`}
        onChange={(_, value) => sound.setVolume((Array.isArray(value) ? (value[0] ?? 0) : value) / 100)}
        sx={{ width: 96 }}
      />
      {sound.waitingForGesture && (
        <Typography id={HINT_ID} variant="body2" color="text.secondary">
          {SOUND_HINT}
        </Typography>
      )}
    </Stack>
  );
}
