import { describe, expect, it } from 'vitest';
import { sampleStats, StatsHistory } from './stats-sample';

function report(entries: Record<string, Record<string, unknown>>): RTCStatsReport {
  return new Map(Object.entries(entries)) as unknown as RTCStatsReport;
}

const base = {
  codec1: { type: 'codec', mimeType: 'video/VP8' },
  t1: { type: 'transport', selectedCandidatePairId: 'p1' },
  p1: { type: 'candidate-pair', currentRoundTripTime: 0.004, remoteCandidateId: 'rc' },
  rc: { type: 'remote-candidate', candidateType: 'host' },
};

describe('sampleStats', () => {
  it('derives bitrate, fps and decode time from two reports', () => {
    const first = sampleStats(
      report({
        ...base,
        in1: { type: 'inbound-rtp', kind: 'video', timestamp: 1000, bytesReceived: 0, framesDecoded: 0 },
      }),
      undefined,
      1,
    );
    expect(first.sample.bitrateKbps).toBeUndefined();
    const second = sampleStats(
      report({
        ...base,
        in1: {
          type: 'inbound-rtp',
          kind: 'video',
          codecId: 'codec1',
          timestamp: 3000,
          bytesReceived: 250_000,
          framesDecoded: 60,
          totalDecodeTime: 0.12,
          frameWidth: 640,
          frameHeight: 360,
          packetsLost: 1,
          packetsReceived: 99,
          jitter: 0.002,
        },
      }),
      first.counters,
      2,
    );
    expect(second.sample).toMatchObject({
      time: 2,
      bitrateKbps: 1000,
      fps: 30,
      width: 640,
      height: 360,
      codec: 'VP8',
      packetsLost: 1,
      packetLossPercent: 1,
      candidateType: 'host',
      framesDecoded: 60,
    });
    expect(second.sample.decodeMs).toBeCloseTo(2);
    expect(second.sample.rttMs).toBeCloseTo(4);
    expect(second.sample.jitterMs).toBeCloseTo(2);
  });

  it("gives the sound's bitrate, jitter and loss where an audio inbound-rtp is reported, and nothing else", () => {
    const video = { type: 'inbound-rtp', kind: 'video', timestamp: 1000, bytesReceived: 0, framesDecoded: 0 };
    const audio = { type: 'inbound-rtp', kind: 'audio', timestamp: 1000, bytesReceived: 0 };
    const without = sampleStats(report({ ...base, in1: video }), undefined, 1);
    expect(without.sample.audio).toBeUndefined();
    const first = sampleStats(report({ ...base, in1: video, in2: audio }), undefined, 1);
    expect(first.sample.audio).toEqual({});
    const second = sampleStats(
      report({
        ...base,
        in1: { ...video, timestamp: 3000, bytesReceived: 250_000 },
        in2: { ...audio, timestamp: 3000, bytesReceived: 16_000, jitter: 0.004, packetsLost: 3 },
      }),
      first.counters,
      2,
    );
    expect(second.sample.bitrateKbps).toBe(1000);
    expect(second.sample.audio).toEqual({ bitrateKbps: 64, jitterMs: 4, packetsLost: 3 });
  });

  it('gives an empty sample before any video arrives', () => {
    const { sample, counters } = sampleStats(report({}), undefined, 5);
    expect(sample).toEqual({ time: 5 });
    expect(counters).toBeUndefined();
  });
});

describe('StatsHistory', () => {
  it('keeps only the last window', () => {
    const history = new StatsHistory(60_000);
    for (let t = 0; t <= 90_000; t += 1000) history.push({ time: t });
    const list = history.list();
    expect(list[0]?.time).toBe(30_000);
    expect(list.at(-1)?.time).toBe(90_000);
    expect(list).toHaveLength(61);
  });
});

describe('the media path', () => {
  const withLocal = (local: Record<string, unknown>) =>
    sampleStats(
      report({
        ...base,
        p1: { ...base.p1, localCandidateId: 'lc' },
        lc: { type: 'local-candidate', ...local },
      }),
      undefined,
      1,
    ).sample.path;

  it('says direct, relay UDP or relay TCP from the local candidate in use', () => {
    expect(withLocal({ candidateType: 'host' })).toBe('direct');
    expect(withLocal({ candidateType: 'srflx' })).toBe('direct');
    expect(withLocal({ candidateType: 'relay', relayProtocol: 'udp' })).toBe('relay UDP');
    expect(withLocal({ candidateType: 'relay', relayProtocol: 'tcp' })).toBe('relay TCP');
    expect(withLocal({ candidateType: 'relay', relayProtocol: 'tls' })).toBe('relay TLS');
    // Learnt from the application's answer to a relayed check: still through the relay.
    expect(withLocal({ candidateType: 'prflx', relayProtocol: 'tcp' })).toBe('relay TCP');
    expect(withLocal({ candidateType: 'prflx' })).toBe('direct');
  });

  it('says nothing before a pair is chosen', () => {
    expect(sampleStats(report(base), undefined, 1).sample.path).toBeUndefined();
  });
});
