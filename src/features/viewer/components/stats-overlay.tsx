/**
 * Live connection figures over the video (and the sound's, where there is sound), with the last minute of
 * bitrate and fps as charts.
 */
import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import type { StatsSample } from '../../../player';
import { Sparkline } from './sparkline';

function fmt(value: number | undefined, digits = 0, unit = ''): string {
  return value === undefined ? '-' : `${value.toFixed(digits)}${unit}`;
}

/**
 * Whether a sample is of a still picture: an application whose picture does not change sends it again
 * about once a second, each time in a few hundred bytes. Read as figures, "1.0 fps, 1 kbit/s" looks like a
 * broken stream; a stalled one that still moves would carry far more bits a frame.
 */
export function isStillPicture(sample: StatsSample | undefined): boolean {
  const { fps, bitrateKbps } = sample ?? {};
  return fps !== undefined && bitrateKbps !== undefined && fps <= 1.5 && bitrateKbps < 20;
}

/** The stats panel; `history` is oldest first. */
export function StatsOverlay(props: { history: StatsSample[] }) {
  const last = props.history.at(-1);
  const still = isStillPicture(last);
  const rows: [string, string][] = [
    ['Resolution', last?.width ? `${last.width}x${last.height ?? 0}` : '-'],
    ['Codec', last?.codec ?? '-'],
    ['Frames per second', still ? `still picture (${fmt(last?.fps, 0)} frame/s)` : fmt(last?.fps, 1)],
    ['Bitrate', fmt(last?.bitrateKbps, 0, ' kbit/s') + (still ? ' (nothing changes)' : '')],
    ['Round trip', fmt(last?.rttMs, 1, ' ms')],
    [
      'Packets lost',
      last?.packetsLost === undefined ? '-' : `${last.packetsLost} (${fmt(last.packetLossPercent, 2)} %)`,
    ],
    ['Jitter', fmt(last?.jitterMs, 1, ' ms')],
    ['Decode time', fmt(last?.decodeMs, 2, ' ms')],
    ['Frames decoded', fmt(last?.framesDecoded)],
    ['Candidate', last?.candidateType ?? '-'],
    ['Path', last?.path ?? '-'],
  ];
  // Only a session with sound reports an audio inbound-rtp; one without says nothing about sound.
  const audio = last?.audio;
  if (audio) {
    rows.push(
      ['Audio bitrate', fmt(audio.bitrateKbps, 0, ' kbit/s')],
      ['Audio jitter', fmt(audio.jitterMs, 1, ' ms')],
      ['Audio packets lost', fmt(audio.packetsLost)],
    );
  }
  return (
    <Box
      role="region"
      aria-label="Stream statistics"
      sx={{
        position: 'absolute',
        top: 8,
        left: 8,
        p: 1,
        borderRadius: 1,
        bgcolor: 'rgba(0,0,0,0.7)',
        color: 'common.white',
        pointerEvents: 'none',
        zIndex: 2,
      }}
    >
      <Box component="dl" sx={{ m: 0, display: 'grid', gridTemplateColumns: 'auto auto', columnGap: 1.5 }}>
        {rows.map(([name, value]) => (
          <Typography key={name} component="div" variant="caption" sx={{ display: 'contents' }}>
            <dt>{name}</dt>
            <dd style={{ margin: 0 }} data-stat={name}>
              {value}
            </dd>
          </Typography>
        ))}
      </Box>
      <Sparkline
        label="Bitrate"
        unit="kbit/s"
        color="#4fc3f7"
        values={props.history.map((s) => s.bitrateKbps ?? 0)}
      />
      <Sparkline
        label="Frame rate"
        unit="fps"
        color="#aed581"
        values={props.history.map((s) => s.fps ?? 0)}
      />
    </Box>
  );
}
