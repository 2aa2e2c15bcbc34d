import { describe, expect, it } from 'vitest';
import {
  OfferError,
  parseOffer,
  PLAYOUT_DELAY_URI,
  withPeerAddress,
  withPlayoutDelay,
  withoutAudio,
  withSingleCandidate,
} from './sdp.ts';

/** An offer as Chromium makes it for a recvonly video transceiver and two data channels (trimmed). */
const chromeOffer = [
  'v=0',
  'o=- 4611731400430051336 2 IN IP4 127.0.0.1',
  's=-',
  't=0 0',
  'a=group:BUNDLE 0 1',
  'a=extmap-allow-mixed',
  'a=msid-semantic: WMS',
  'm=video 9 UDP/TLS/RTP/SAVPF 96 97 102 104 106 112',
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
  'a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f',
  'a=rtpmap:104 H264/90000',
  'a=fmtp:104 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f',
  'a=rtpmap:106 H264/90000',
  'a=fmtp:106 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f',
  'a=rtpmap:112 H264/90000',
  'a=fmtp:112 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=64001f',
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

/** Chromium's audio section for a recvonly audio transceiver (trimmed), inserted before the data channels. */
function withAudioSection(direction = 'recvonly', rtpmap = 'a=rtpmap:111 opus/48000/2'): string {
  const audio = [
    'm=audio 9 UDP/TLS/RTP/SAVPF 111 63 9',
    'c=IN IP4 0.0.0.0',
    'a=ice-ufrag:Ab12',
    'a=ice-pwd:abcdefghijklmnopqrstuvwx',
    'a=fingerprint:sha-256 00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF',
    'a=setup:actpass',
    'a=mid:2',
    `a=${direction}`,
    rtpmap,
    'a=fmtp:111 minptime=10;useinbandfec=1',
    'a=rtpmap:63 red/48000/2',
    'a=rtpmap:9 G722/8000',
    '',
  ].join('\r\n');
  const at = chromeOffer.indexOf('m=application');
  return chromeOffer.slice(0, at) + audio + chromeOffer.slice(at);
}

describe('parseOffer', () => {
  it('finds the audio mid and the Opus payload type where the viewer can receive Opus', () => {
    expect(parseOffer(withAudioSection())).toMatchObject({
      videoMid: '0',
      audioMid: '2',
      audioPayloadType: 111,
    });
    for (const offer of [
      withAudioSection('inactive'),
      withAudioSection('recvonly', 'a=rtpmap:111 PCMU/8000'),
    ])
      expect(parseOffer(offer)).toMatchObject({ videoMid: '0', audioMid: null, audioPayloadType: null });
  });

  it('finds the video mid, the VP8 payload type and the data channels', () => {
    expect(parseOffer(chromeOffer)).toEqual({
      videoMid: '0',
      payloadType: 96,
      fmtp: null,
      hasDataChannels: true,
      playoutDelayExtId: null,
      audioMid: null,
      audioPayloadType: null,
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
    expect(parseOffer(offer).payloadType).toBe(120);
  });

  describe('for a session that streams H.264', () => {
    it('takes constrained baseline with packetization mode 1, and answers its profile', () => {
      expect(parseOffer(chromeOffer, 'h264')).toMatchObject({
        videoMid: '0',
        payloadType: 106,
        fmtp: 'profile-level-id=42e01f;packetization-mode=1;level-asymmetry-allowed=1',
      });
    });

    it('takes baseline (which decodes constrained baseline) when constrained baseline is not offered', () => {
      const offer = chromeOffer
        .replace('profile-level-id=42e01f', 'profile-level-id=4d001f')
        .replace(
          'a=fmtp:106 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f',
          'a=fmtp:106 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f',
        );
      expect(parseOffer(offer, 'h264')).toMatchObject({
        payloadType: 102,
        fmtp: 'profile-level-id=42001f;packetization-mode=1;level-asymmetry-allowed=1',
      });
    });

    it.each([
      [
        'only packetization mode 0',
        (o: string) => o.replaceAll('packetization-mode=1', 'packetization-mode=0'),
      ],
      [
        'only high profile',
        (o: string) => o.replaceAll(/profile-level-id=42\w+/g, 'profile-level-id=64001f'),
      ],
      ['no H.264 at all (VP8 only)', (o: string) => o.replaceAll(/a=(rtpmap|fmtp):1\d\d .*\r\n/g, '')],
    ])('refuses a viewer that offers %s, saying which codec the session streams', (_name, edit) => {
      expect(() => parseOffer(edit(chromeOffer), 'h264')).toThrow(OfferError);
      expect(() => parseOffer(edit(chromeOffer), 'h264')).toThrow(/streams H\.264/);
    });

    it('still finds the playout-delay extension', () => {
      const offer = chromeOffer.replace('a=mid:0', `a=mid:0\r\na=extmap:9 ${PLAYOUT_DELAY_URI}`);
      expect(parseOffer(offer, 'h264').playoutDelayExtId).toBe(9);
    });
  });

  it('accepts an offer with data channels only', () => {
    const dataOnly =
      chromeOffer.slice(0, chromeOffer.indexOf('m=video')) +
      chromeOffer.slice(chromeOffer.indexOf('m=application'));
    expect(parseOffer(dataOnly)).toEqual({
      videoMid: null,
      payloadType: null,
      fmtp: null,
      hasDataChannels: true,
      playoutDelayExtId: null,
      audioMid: null,
      audioPayloadType: null,
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

describe('withPeerAddress', () => {
  const hidden =
    'a=candidate:3009305736 1 udp 2113937151 0f0e2d1c-3b4a-4c5d-8e9f-a0b1c2d3e4f5.local 55239 typ host generation 0';
  const offer = (...candidates: string[]) =>
    [...chromeOffer.split('\r\n').slice(0, -1), ...candidates, ''].join('\r\n');

  it('gives a hidden (mDNS) UDP host candidate the address the offer came from, keeping its port', () => {
    const out = withPeerAddress(offer(hidden), '192.0.2.7');
    expect(out).toContain(
      '\r\na=candidate:3009305736 1 udp 2113937151 192.0.2.7 55239 typ host generation 0\r\n',
    );
    expect(out.replace('192.0.2.7', '0f0e2d1c-3b4a-4c5d-8e9f-a0b1c2d3e4f5.local')).toBe(offer(hidden));
  });

  it('gives the address to the first hidden candidate only', () => {
    const second = hidden.replace('3009305736', '2016976232').replace('55239', '37998');
    const out = withPeerAddress(offer(hidden, second), '192.0.2.7');
    expect(out).toContain(' 192.0.2.7 55239 typ host');
    expect(out).toContain(`\r\n${second}\r\n`);
  });

  it('writes an IPv4 peer seen through an IPv6 socket as IPv4, and an IPv6 peer as it is', () => {
    expect(withPeerAddress(offer(hidden), '::ffff:10.1.2.3')).toContain(' 10.1.2.3 55239 typ host');
    expect(withPeerAddress(offer(hidden), '2001:db8::5')).toContain(' 2001:db8::5 55239 typ host');
  });

  it('leaves candidates with an address, TCP and relayed ones, and an unknown peer, alone', () => {
    const others = [
      'a=candidate:1 1 udp 2113937151 198.51.100.4 50000 typ host',
      'a=candidate:2 1 tcp 1518280447 0f0e2d1c-3b4a-4c5d-8e9f-a0b1c2d3e4f5.local 9 typ host tcptype active',
      'a=candidate:3 1 udp 41885439 203.0.113.9 3478 typ relay raddr 0.0.0.0 rport 0',
      'a=candidate:4 1 udp 1677729535 203.0.113.10 61000 typ srflx raddr 0.0.0.0 rport 0',
    ];
    expect(withPeerAddress(offer(...others), '192.0.2.7')).toBe(offer(...others));
    expect(withPeerAddress(offer(hidden), undefined)).toBe(offer(hidden));
  });
});

describe('withoutAudio', () => {
  it('makes only the audio sections inactive', () => {
    const answer = withAudioSection('sendonly').replace('a=recvonly', 'a=sendonly');
    const out = withoutAudio(answer);
    const audio = out.slice(out.indexOf('m=audio'), out.indexOf('m=application'));
    expect(audio).toContain('a=inactive');
    expect(audio).not.toContain('a=sendonly');
    expect(out.slice(0, out.indexOf('m=audio'))).toContain('a=sendonly');
  });
});
