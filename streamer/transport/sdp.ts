/**
 * The few facts the application needs from a viewer's SDP offer, checked before any native code sees
 * it, the rewrite that leaves the answer with exactly one host candidate on the media port, and the one that
 * gives the offer's hidden (mDNS) host candidates the address the offer came from.
 */

import type { Codec } from '../../protocol/launch.ts';

/** An offer that cannot be answered; the signaling server turns it into a 400 with this message. */
export class OfferError extends Error {}

/** What the application takes from an offer. */
export interface OfferInfo {
  /** mid of the first video section the viewer can receive, or null when it asks for no video. */
  videoMid: string | null;
  /** The viewer's payload type for the session's codec in that section, null without video. */
  payloadType: number | null;
  /** The format parameters to answer for that payload type (H.264's profile and packetization), or null. */
  fmtp: string | null;
  /** Whether the offer has a data channel (application) section. */
  hasDataChannels: boolean;
  /** The id the viewer gave the playout-delay RTP header extension in that section, or null. */
  playoutDelayExtId: number | null;
  /** mid of the first audio section in which the viewer can receive Opus (48 kHz stereo), or null. */
  audioMid: string | null;
  /** The viewer's payload type for Opus in that section, null without one. */
  audioPayloadType: number | null;
}

/** What the H.264 encoders make: constrained baseline (profile_idc 66 with constraint_set1), level 3.1. */
export const H264_PROFILE_LEVEL_ID = '42e01f';

/**
 * The viewer's payload type for H.264 that this application can send, with the fmtp to answer: packetization
 * mode 1 (FU-A, STAP-A) and a baseline profile (profile_idc 0x42), the constrained one (42e0..) first since
 * it is exactly what the encoder makes; a baseline decoder decodes constrained baseline too. Null: none.
 */
function h264Payload(lines: string[]): { payloadType: number; fmtp: string } | null {
  const candidates: { payloadType: number; profile: string }[] = [];
  for (const line of lines) {
    const rtpmap = /^a=rtpmap:(\d+) H264\/90000/i.exec(line);
    if (!rtpmap) continue;
    const pt = rtpmap[1]!;
    const fmtp = lines.find((l) => l.startsWith(`a=fmtp:${pt} `))?.slice(`a=fmtp:${pt} `.length) ?? '';
    const params = new Map(
      fmtp.split(';').map((p) => {
        const [key = '', value = ''] = p.trim().split('=');
        return [key.toLowerCase(), value.trim().toLowerCase()] as const;
      }),
    );
    const profile = params.get('profile-level-id') ?? '42000a'; // RFC 6184's default: baseline
    if (params.get('packetization-mode') !== '1' || !/^42[0-9a-f]{4}$/.test(profile)) continue;
    candidates.push({ payloadType: Number(pt), profile });
  }
  const best = candidates.find((c) => c.profile.startsWith('42e0')) ?? candidates[0];
  if (!best) return null;
  return {
    payloadType: best.payloadType,
    fmtp: `profile-level-id=${best.profile};packetization-mode=1;level-asymmetry-allowed=1`,
  };
}

/** Chromium's RTP header extension by which a sender asks for frames to be shown as soon as decoded. */
export const PLAYOUT_DELAY_URI = 'http://www.webrtc.org/experiments/rtp-hdrext/playout-delay';

interface Section {
  kind: string;
  lines: string[];
}

function sections(sdp: string): { session: string[]; media: Section[] } {
  const lines = sdp.split(/\r?\n/).filter((l) => l.length > 0);
  const session: string[] = [];
  const media: Section[] = [];
  for (const line of lines) {
    if (line.startsWith('m=')) media.push({ kind: line.slice(2).split(' ')[0] ?? '', lines: [line] });
    else if (media.length > 0) media[media.length - 1]?.lines.push(line);
    else session.push(line);
  }
  return { session, media };
}

/**
 * Checks that `sdp` is an offer this application can answer with video in `codec` (the session's: one
 * encoder serves every viewer); throws OfferError with a short reason.
 */
export function parseOffer(sdp: string, codec: Codec = 'vp8'): OfferInfo {
  if (!sdp.startsWith('v=0')) throw new OfferError('The body is not an SDP offer (it must start with v=0).');
  if (/[^\t\r\n\x20-\x7e]/.test(sdp))
    throw new OfferError('The SDP offer has characters that SDP does not allow.');
  const { session, media } = sections(sdp);
  if (media.length === 0) throw new OfferError('The SDP offer has no media section.');
  for (const line of [...session, ...media.flatMap((m) => m.lines)]) {
    if (!/^[a-z]=/.test(line))
      throw new OfferError(`The SDP offer has a malformed line: ${line.slice(0, 40)}`);
  }
  const has = (prefix: string, section: Section) =>
    section.lines.some((l) => l.startsWith(prefix)) || session.some((l) => l.startsWith(prefix));
  for (const section of media) {
    if (!has('a=ice-ufrag:', section) || !has('a=ice-pwd:', section)) {
      throw new OfferError('The SDP offer has no ICE credentials.');
    }
    if (!has('a=fingerprint:', section)) throw new OfferError('The SDP offer has no DTLS fingerprint.');
  }
  const receives = (m: Section) => !m.lines.some((l) => l === 'a=sendonly' || l === 'a=inactive');
  const video = media.find((m) => m.kind === 'video' && receives(m));
  let videoMid: string | null = null;
  let payloadType: number | null = null;
  let fmtp: string | null = null;
  let playoutDelayExtId: number | null = null;
  if (video) {
    const mid = video.lines.find((l) => l.startsWith('a=mid:'));
    if (!mid) throw new OfferError('The video section of the SDP offer has no a=mid.');
    videoMid = mid.slice('a=mid:'.length).trim();
    if (codec === 'h264') {
      const h264 = h264Payload(video.lines);
      if (!h264) {
        throw new OfferError(
          'This session streams H.264 video (constrained baseline, packetization-mode=1), which the viewer does not offer to receive.',
        );
      }
      ({ payloadType, fmtp } = h264);
    } else {
      const vp8 = video.lines.map((l) => /^a=rtpmap:(\d+) VP8\/90000/i.exec(l)).find((m) => m !== null);
      if (!vp8) throw new OfferError('The viewer does not offer to receive VP8 video.');
      payloadType = Number(vp8[1]);
    }
    // One-byte header extensions only (ids 1-14).
    const ext = video.lines
      .map((l) => /^a=extmap:(\d+)(?:\/\w+)? (\S+)$/.exec(l))
      .find((m) => m?.[2] === PLAYOUT_DELAY_URI);
    const id = Number(ext?.[1]);
    if (id >= 1 && id <= 14) playoutDelayExtId = id;
  }
  // Sound is optional: an offer without an audio section Opus can go in gets video only (CONTRACT §19).
  let audioMid: string | null = null;
  let audioPayloadType: number | null = null;
  for (const section of media.filter((m) => m.kind === 'audio' && receives(m))) {
    const mid = section.lines
      .find((l) => l.startsWith('a=mid:'))
      ?.slice('a=mid:'.length)
      .trim();
    const opus = section.lines.map((l) => /^a=rtpmap:(\d+) opus\/48000\/2$/i.exec(l)).find((m) => m);
    if (!mid || !opus) continue;
    audioMid = mid;
    audioPayloadType = Number(opus[1]);
    break;
  }
  return {
    videoMid,
    payloadType,
    fmtp,
    hasDataChannels: media.some((m) => m.kind === 'application'),
    playoutDelayExtId,
    audioMid,
    audioPayloadType,
  };
}

/** Adds the playout-delay extension, with the viewer's id, to the answer's section `mid`. */
export function withPlayoutDelay(answer: string, mid: string, id: number): string {
  return answer.replace(
    `\r\na=mid:${mid}\r\n`,
    `\r\na=mid:${mid}\r\na=extmap:${id} ${PLAYOUT_DELAY_URI}\r\n`,
  );
}

/**
 * Makes the answer's audio sections inactive: libdatachannel answers an offered section it has no track for
 * with the mirror of its direction (sendonly), and a browser would then wait for a sound that never comes.
 */
export function withoutAudio(answer: string): string {
  const { session, media } = sections(answer);
  const out = [...session];
  for (const section of media) {
    if (section.kind !== 'audio') out.push(...section.lines);
    else
      out.push(...section.lines.map((l) => (/^a=(sendonly|sendrecv|recvonly)$/.test(l) ? 'a=inactive' : l)));
  }
  return out.join('\r\n') + '\r\n';
}

/**
 * Replaces every candidate of an answer by one host candidate at host:port in each media section, and
 * marks gathering complete, so the viewer needs no trickle.
 */
export function withSingleCandidate(answer: string, host: string, port: number): string {
  const { session, media } = sections(answer);
  const candidate = `a=candidate:1 1 UDP 2122317823 ${host} ${port} typ host`;
  const out = [...session];
  for (const section of media) {
    out.push(...section.lines.filter((l) => !l.startsWith('a=candidate:') && l !== 'a=end-of-candidates'));
    out.push(candidate, 'a=end-of-candidates');
  }
  return out.join('\r\n') + '\r\n';
}

// candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type> ...
const CANDIDATE = /^(a=candidate:\S+ \d+ (\S+) \d+ )(\S+)( \d+ typ host(?: .*)?)$/;

/**
 * Gives the offer's first UDP host candidate that hides its address behind an mDNS name (`<uuid>.local`, what
 * browsers offer to a page without camera permission) `peer`, the address the offer's HTTP request came from,
 * keeping its port. This application's ICE agent cannot resolve such names, so it learned the viewer's address
 * only from the viewer's first check, and libjuice sends the check that must answer it a pacing interval (50 ms)
 * later: a viewer's connection took 50 or 100 ms longer than its network needed. With the address, the agent's
 * first check goes at once. Where the viewer is behind a proxy or NAT the address is wrong: that check goes
 * unanswered and the viewer's own check connects as before. Only the first such candidate: each more would take
 * one more pacing slot, which the check answering the viewer's could then have to wait behind. No other address
 * is ever used, so a viewer can only have checks sent to the address it connected from.
 */
export function withPeerAddress(offer: string, peer: string | undefined): string {
  const address = peer?.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  if (!address) return offer;
  let done = false;
  return offer
    .split('\n')
    .map((line) => {
      const hasCr = line.endsWith('\r');
      const match = done ? null : CANDIDATE.exec(hasCr ? line.slice(0, -1) : line);
      if (!match) return line;
      const [, head, transport, name, tail] = match as unknown as [string, string, string, string, string];
      if (transport.toLowerCase() !== 'udp' || !/\.local$/i.test(name)) return line;
      done = true;
      return `${head}${address}${tail}${hasCr ? '\r' : ''}`;
    })
    .join('\n');
}
