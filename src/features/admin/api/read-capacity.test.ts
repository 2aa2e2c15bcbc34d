import { describe, expect, it } from 'vitest';
import type { Capacity } from '../../../lib/api/get-capacity';
import { relayKbps } from './read-capacity';

const door = {
  signaling: 'auto',
  relay: 'embedded',
  relayed_viewers: 1,
  relayed_flows: 1,
  relay_bytes_in: 0,
  relay_bytes_out: 0,
  offers: 0,
} as const;
const capacity = (bytesIn: number, bytesOut: number): Capacity => ({
  capacity: 2,
  running: 1,
  warm: 0,
  queued: 0,
  by_profile: [],
  door: { ...door, relay_bytes_in: bytesIn, relay_bytes_out: bytesOut },
});

describe('the relay’s bandwidth between two readings', () => {
  it('counts the bytes relayed both ways, in kbit/s over the time between the readings', () => {
    // 62 500 bytes in 5 s: 100 kbit/s.
    expect(
      relayKbps({ capacity: capacity(1_000, 9_000), at: 10_000 }, capacity(11_000, 61_500), 15_000),
    ).toBe(100);
  });

  it('is unknown at the first reading, without a door, and after the service restarted its counts', () => {
    expect(relayKbps(undefined, capacity(5, 5), 1)).toBeUndefined();
    expect(relayKbps(null, capacity(5, 5), 1)).toBeUndefined();
    const { door: _none, ...withoutDoor } = capacity(0, 0);
    expect(relayKbps({ capacity: withoutDoor, at: 0 }, capacity(5, 5), 5_000)).toBeUndefined();
    expect(relayKbps({ capacity: capacity(9_000, 9_000), at: 0 }, capacity(10, 10), 5_000)).toBeUndefined();
  });
});
