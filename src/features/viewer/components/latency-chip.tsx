/**
 * The round trip to the application, always in sight beside the player's state (the statistics overlay has the
 * rest): green up to 60 ms, where input feels immediate; amber up to 150 ms, where a person notices it; red
 * beyond. The path (direct or through a relay) and the frame rate are in its tooltip. Until the browser reports a
 * round trip it holds its place unseen, so that nothing on the page moves when the first figure comes.
 */
import Chip from '@mui/material/Chip';
import Tooltip from '@mui/material/Tooltip';
import type { StatsSample } from '../../../player';

/** Up to these round trips (ms), a connection is good, then fair; beyond, slow. */
export const GOOD_RTT_MS = 60;
export const FAIR_RTT_MS = 150;

export function latencyLevel(rttMs: number): { color: 'success' | 'warning' | 'error'; word: string } {
  if (rttMs <= GOOD_RTT_MS) return { color: 'success', word: 'good' };
  if (rttMs <= FAIR_RTT_MS) return { color: 'warning', word: 'fair' };
  return { color: 'error', word: 'slow' };
}

/** Its place on the line, kept while there is nothing to say: the page must not move when a figure comes. */
export const CHIP_SX = { ml: 1, height: 20, '& .MuiChip-label': { px: 0.75 } } as const;

export function LatencyChip(props: { sample: StatsSample | undefined }) {
  const rtt = props.sample?.rttMs;
  if (rtt === undefined)
    return (
      <Chip
        size="small"
        variant="outlined"
        label="Latency 0 ms"
        aria-hidden
        sx={{ ...CHIP_SX, visibility: 'hidden' }}
      />
    );
  const ms = Math.round(rtt);
  const { color, word } = latencyLevel(ms);
  const details = [
    props.sample?.path && `path ${props.sample.path}`,
    props.sample?.fps !== undefined && `${Math.round(props.sample.fps)} fps`,
  ].filter(Boolean);
  return (
    <Tooltip
      describeChild
      title={`Round trip to the application: ${ms} ms, ${word}${details.length ? ` (${details.join(', ')})` : ''}`}
    >
      <Chip
        size="small"
        variant="outlined"
        color={color}
        label={`Latency ${ms} ms`}
        data-level={word}
        sx={CHIP_SX}
      />
    </Tooltip>
  );
}
