import { describe, expect, it } from 'vitest';
import { OfferError, parseOffer, PLAYOUT_DELAY_URI, withPlayoutDelay, withSingleCandidate } from './sdp.ts';

/** An offer as Chromium makes it for a recvonly video transceiver and two data channels (trimmed). */
const chromeOffer = [
  'v=0',
  'o=- 4611731400430051336 2 IN IP4 127.0.0.1',
  's=-',
  't=0 0',
  'a=group:BUNDLE 0 1',
  'a=extmap-allow-mixed',
  'a=msid-semantic: WMS',
  'm=video 9 UDP/TLS/RTP/SAVPF 96 97 102',
  'c=IN IP4 0.0.0.0',
  'a=rtcp:9 IN IP4 0.0.0.0',
  'a=ice-ufrag:Ab12',
  'a=ice-pwd:abcdefghijklmnopqrstuvwx',
  'a=ice-options:trickle',
  'a=fingerprint:sha-256 00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF',
  'a=setup:actpass',
  'a=mid:0',
  'a=recvonly',
  'a=rtcp-mux',
  'a=rtpmap:96 VP8/90000',
  'a=rtcp-fb:96 nack',
  'a=rtpmap:97 rtx/90000',
  'a=fmtp:97 apt=96',
  'a=rtpmap:102 H264/90000',
  'm=application 9 UDP/DTLS/SCTP webrtc-datachannel',
  'c=IN IP4 0.0.0.0',
  'a=ice-ufrag:Ab12',
  'a=ice-pwd:abcdefghijklmnopqrstuvwx',
  'a=fingerprint:sha-256 00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF',
  'a=setup:actpass',
  'a=mid:1',
  'a=sctp-port:5000',
  '',
].join('\r\n');

describe('parseOffer', () => {
  it('finds the video mid, the VP8 payload type and the data channels', () => {
    expect(parseOffer(chromeOffer)).toEqual({
      videoMid: '0',
      vp8PayloadType: 96,
      hasDataChannels: true,
      playoutDelayExtId: null,
    });
  });

  it('finds the playout-delay extension of the video section, one-byte ids only', () => {
    const offer = (id: number) =>
      chromeOffer.replace('a=mid:0', `a=mid:0\r\na=extmap:${id} ${PLAYOUT_DELAY_URI}`);
    expect(parseOffer(offer(6)).playoutDelayExtId).toBe(6);
    expect(parseOffer(offer(15)).playoutDelayExtId).toBeNull();
  });

  it('adds the playout-delay extension to the answer section of that mid only', () => {
    const out = withPlayoutDelay(chromeOffer, '0', 6);
    expect(out).toContain(`a=mid:0\r\na=extmap:6 ${PLAYOUT_DELAY_URI}\r\n`);
    expect(out.match(/a=extmap:/g)).toHaveLength(1);
    expect(parseOffer(out).playoutDelayExtId).toBe(6);
  });

  it('takes the payload type the viewer chose for VP8', () => {
    const offer = chromeOffer.replace('a=rtpmap:96 VP8/90000', 'a=rtpmap:120 VP8/90000');
    expect(parseOffer(offer).vp8PayloadType).toBe(120);
  });

  it('accepts an offer with data channels only', () => {
    const dataOnly =
      chromeOffer.slice(0, chromeOffer.indexOf('m=video')) +
      chromeOffer.slice(chromeOffer.indexOf('m=application'));
    expect(parseOffer(dataOnly)).toEqual({
      videoMid: null,
      vp8PayloadType: null,
      hasDataChannels: true,
      playoutDelayExtId: null,
    });
  });

  it.each([
    ['not SDP', 'hello', /must start with v=0/],
    ['no media', 'v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n', /no media section/],
    ['a malformed line', chromeOffer.replace('a=setup:actpass', 'garbage line'), /malformed line/],
    ['no ICE credentials', chromeOffer.replaceAll(/a=ice-pwd:.*\r\n/g, ''), /no ICE credentials/],
    ['no fingerprint', chromeOffer.replaceAll(/a=fingerprint:.*\r\n/g, ''), /no DTLS fingerprint/],
    ['no VP8', chromeOffer.replace('a=rtpmap:96 VP8/90000', 'a=rtpmap:96 VP9/90000'), /VP8/],
    ['no video mid', chromeOffer.replace('a=mid:0\r\n', ''), /no a=mid/],
    ['binary bytes', chromeOffer.replace('s=-', 's=\u0000'), /characters/],
  ])('refuses %s', (_name, offer, message) => {
    expect(() => parseOffer(offer)).toThrow(OfferError);
    expect(() => parseOffer(offer)).toThrow(message);
  });
});

describe('withSingleCandidate', () => {
  it('leaves exactly one host candidate on the media port in each section', () => {
    const answer = chromeOffer.replace(
      'a=mid:0',
      'a=mid:0\r\na=candidate:1 1 UDP 2122317823 192.168.1.9 40000 typ host\r\na=candidate:2 1 UDP 2122317823 ::1 40000 typ host',
    );
    const out = withSingleCandidate(answer, '127.0.0.1', 47998);
    const candidates = out.split('\r\n').filter((l) => l.startsWith('a=candidate:'));
    expect(candidates).toEqual([
      'a=candidate:1 1 UDP 2122317823 127.0.0.1 47998 typ host',
      'a=candidate:1 1 UDP 2122317823 127.0.0.1 47998 typ host',
    ]);
    expect(out.match(/a=end-of-candidates/g)).toHaveLength(2);
    expect(out.endsWith('\r\n')).toBe(true);
    expect(parseOffer(out).videoMid).toBe('0');
  });
});
