import { describe, expect, it } from 'vitest';
import { rewriteCandidates } from './candidate-rewrite';

const answer = [
  'v=0',
  'o=- 1 2 IN IP4 127.0.0.1',
  's=-',
  't=0 0',
  'm=video 9 UDP/TLS/RTP/SAVPF 96',
  'c=IN IP4 0.0.0.0',
  'a=candidate:1 1 udp 2130706431 172.17.0.2 47810 typ host generation 0',
  'a=end-of-candidates',
  '',
].join('\r\n');

describe('rewriteCandidates', () => {
  it('rewrites the host candidate to the route host and media port', () => {
    const out = rewriteCandidates(answer, { host: 'gpu-3.example.org', port: 31000 });
    expect(out).toContain('a=candidate:1 1 udp 2130706431 gpu-3.example.org 31000 typ host generation 0\r\n');
    expect(out).not.toContain('172.17.0.2');
  });

  it('leaves every other line as it was, CRLF endings included', () => {
    const out = rewriteCandidates(answer, { host: '10.1.1.1', port: 5000 });
    const before = answer.split('\r\n');
    const after = out.split('\r\n');
    expect(after).toHaveLength(before.length);
    after.forEach((line, i) => {
      if (!line.startsWith('a=candidate')) expect(line).toBe(before[i]);
    });
  });

  it('returns the SDP unchanged when the candidate already matches', () => {
    expect(rewriteCandidates(answer, { host: '172.17.0.2', port: 47810 })).toBe(answer);
  });

  it('changes only the port when only the port differs, and strips IPv6 brackets', () => {
    expect(rewriteCandidates(answer, { host: '172.17.0.2', port: 40000 })).toContain(
      ' 172.17.0.2 40000 typ host',
    );
    const v6 = answer.replace('172.17.0.2', '::1');
    expect(rewriteCandidates(v6, { host: '[::1]', port: 40000 })).toContain(' ::1 40000 typ host');
  });

  it('does not touch relay or server-reflexive candidates', () => {
    const relay = 'a=candidate:2 1 udp 5 1.2.3.4 3478 typ relay raddr 0.0.0.0 rport 0\n';
    expect(rewriteCandidates(relay, { host: '9.9.9.9', port: 1 })).toBe(relay);
  });
});
