import { getCapacity, type Capacity } from '../../../lib/api/get-capacity';

/** The capacity figures as read at one moment, with the relay's bandwidth since the reading before. */
export interface CapacityReading {
  capacity: Capacity;
  /** `Date.now()` when the answer came. */
  at: number;
  /**
   * Bytes relayed both ways per second since the previous reading, in kbit/s: undefined at the first reading,
   * without a relay's figures, or after the service restarted (its counts started again).
   */
  relayKbps: number | undefined;
}

/** The relay's bandwidth between two readings, in kbit/s (see `CapacityReading.relayKbps`). */
export function relayKbps(
  previous: Pick<CapacityReading, 'capacity' | 'at'> | null | undefined,
  capacity: Capacity,
  at: number,
): number | undefined {
  const before = previous?.capacity.door;
  const now = capacity.door;
  if (!previous || !before || !now || at <= previous.at) return undefined;
  const bytes = now.relay_bytes_in + now.relay_bytes_out - (before.relay_bytes_in + before.relay_bytes_out);
  if (bytes < 0) return undefined;
  return (8 * bytes) / (at - previous.at);
}

/** GET /admin/capacity, and the relay's bandwidth from the reading before it; null where the service does not tell. */
export async function readCapacity(
  previous: CapacityReading | null | undefined,
  signal?: AbortSignal,
): Promise<CapacityReading | null> {
  const capacity = await getCapacity(signal);
  if (!capacity) return null;
  const at = Date.now();
  return { capacity, at, relayKbps: relayKbps(previous, capacity, at) };
}
