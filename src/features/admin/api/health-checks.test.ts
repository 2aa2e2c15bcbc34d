import { describe, expect, it } from 'vitest';
import type { Capacity } from '../../../lib/api/get-capacity';
import type { Session } from '../../../lib/api-client';
import { healthChecks } from './health-checks';

const NOW = Date.parse('2026-11-28T12:00:00Z');

function capacity(over: Partial<Capacity> = {}): Capacity {
  return { capacity: 2, running: 1, warm: 0, queued: 0, by_profile: [], ...over };
}

function failed(id: string, minutesAgo: number, message = 'Broken 1.0.0 exited with code 3'): Session {
  return {
    id,
    end_cause: 'failed',
    ended_at: new Date(NOW - minutesAgo * 60_000).toISOString(),
    status: { condition: 'failed', message },
  } as unknown as Session;
}

const levels = (checks: ReturnType<typeof healthChecks>) =>
  Object.fromEntries(checks.map((check) => [check.name, check.level]));

describe('healthChecks', () => {
  it('is all good on a quiet service: GPUs free, warm ones held, the relay there, no failures', () => {
    const checks = healthChecks(
      capacity({
        warm: 1,
        by_profile: [{ profile: 'instant', running: 0, queued: 0, warm: 1, warm_target: 1 }],
        door: {
          signaling: 'auto',
          relay: 'embedded',
          relayed_viewers: 0,
          relayed_flows: 0,
          relay_bytes_in: 0,
          relay_bytes_out: 0,
          offers: 0,
        },
      }),
      [],
      NOW,
    );
    expect(levels(checks)).toEqual({
      'Sessions can start': 'ok',
      'Warm applications': 'ok',
      'Relay (TURN)': 'ok',
      'Launches in the last hour': 'ok',
    });
    expect(checks[0]?.text).toBe('0 of 2 GPUs free, nobody waiting.');
  });

  it('puts problems first: a relay that failed to start, failures within the hour, nodes down', () => {
    const checks = healthChecks(
      capacity({
        queued: 2,
        door: {
          signaling: 'auto',
          relay: 'none',
          relay_problem: 'coturn did not start: port 3478 is taken',
          relayed_viewers: 0,
          relayed_flows: 0,
          relay_bytes_in: 0,
          relay_bytes_out: 0,
          offers: 0,
        },
        cluster: {
          scheduler: 'slurm',
          partitions: [{ name: 'gpu', gpus: 1, gpus_in_use: 1, nodes: 2, nodes_down: ['node2'] }],
          nodes: [],
          profiles: [
            { profile: 'big', runnable: false, message: 'no node of the cluster that is up has 2 GPUs' },
          ],
        },
      } as Partial<Capacity>),
      [failed('aaaaaaaa-1', 5), failed('bbbbbbbb-2', 30), failed('cccccccc-3', 59), failed('dddddddd-4', 61)],
      NOW,
    );
    expect(checks.map((check) => check.level)).toEqual([
      'problem',
      'problem',
      'problem',
      'warning',
      'warning',
    ]);
    expect(levels(checks)).toMatchObject({
      'Relay (TURN)': 'problem',
      'Launches in the last hour': 'problem',
      'Profiles on the cluster': 'problem',
      'Cluster nodes': 'warning',
      'Sessions can start': 'warning',
    });
    const launches = checks.find((check) => check.name === 'Launches in the last hour');
    expect(launches?.text).toBe('3 sessions failed; the latest, aaaaaaaa: Broken 1.0.0 exited with code 3');
  });

  it('warns of one or two failures, and leaves out what the deployment does not tell', () => {
    const checks = healthChecks(capacity(), [failed('aaaaaaaa-1', 1)], NOW);
    expect(levels(checks)).toEqual({ 'Launches in the last hour': 'warning', 'Sessions can start': 'ok' });
    expect(levels(healthChecks(capacity(), undefined, NOW))).toEqual({ 'Sessions can start': 'ok' });
  });
});
