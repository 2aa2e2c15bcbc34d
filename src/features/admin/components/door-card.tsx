import { useQuery } from '@tanstack/react-query';
import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import type { components } from '../../../../api/schema';
import { adminQueries } from '../api/admin-queries';
import type { CapacityReading } from '../api/read-capacity';

type Door = components['schemas']['Door'];

const SIGNALING: Record<Door['signaling'], string> = {
  auto: 'through the service where a session runs on another host, straight to the session on this one (auto)',
  door: 'always through the service (door)',
  direct: 'straight to the session’s own host (direct)',
};

/** The relay in words: which one, or why there is none. */
function relayWords(door: Door): string {
  if (door.relay === 'embedded') return 'embedded coturn';
  if (door.relay === 'site') return 'the site’s TURN server';
  return door.relay_problem ? `none: ${door.relay_problem}` : 'none';
}

/** kbit/s as a person reads it; the first reading has nothing to compare with. */
function bandwidthWords(kbps: number | undefined): string {
  if (kbps === undefined) return 'measured from the next reading (every 5 s)';
  return `${Math.round(kbps).toLocaleString('en')} kbit/s`;
}

const selectDoor = (reading: CapacityReading | null) =>
  reading?.capacity.door ? { door: reading.capacity.door, relayKbps: reading.relayKbps } : null;

/**
 * How viewers get in when they cannot reach a session (CONTRACT §21): the signaling mode, the relay, what it
 * carries now and the offers answered through the service. Nothing where the service does not tell.
 */
export function DoorCard() {
  const { data } = useQuery({ ...adminQueries.capacity(), select: selectDoor });
  if (!data) return null;
  const { door, relayKbps } = data;
  const rows: [string, string][] = [
    ['Signaling', SIGNALING[door.signaling]],
    ['Relay', relayWords(door)],
    ['Relayed viewers now', String(door.relayed_viewers)],
    ['Relayed flows', String(door.relayed_flows)],
    ['Relay bandwidth', bandwidthWords(relayKbps)],
    ['Offers through the door', String(door.offers)],
  ];
  return (
    <Paper variant="outlined" sx={{ p: 2 }} component="section" aria-labelledby="door-heading">
      <Typography id="door-heading" variant="h6" component="h2">
        Door
      </Typography>
      <Box
        component="dl"
        sx={{ display: 'grid', gridTemplateColumns: 'max-content 1fr', columnGap: 2, rowGap: 0.5, m: 0 }}
      >
        {rows.map(([term, value]) => (
          <Box key={term} sx={{ display: 'contents' }}>
            <Typography component="dt" variant="body2" color="text.secondary">
              {term}
            </Typography>
            <Typography component="dd" variant="body2" sx={{ m: 0 }} data-figure={term}>
              {value}
            </Typography>
          </Box>
        ))}
      </Box>
    </Paper>
  );
}
