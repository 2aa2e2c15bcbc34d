import { Audio, PeerConnection, Video } from 'node-datachannel';
import { afterEach, describe, expect, it } from 'vitest';
import { OfferError, parseOffer, PLAYOUT_DELAY_URI } from './sdp.ts';
import { Viewer } from './viewer.ts';

const peers: PeerConnection[] = [];
afterEach(() => {
  for (const peer of peers.splice(0)) peer.close();
});

/**
 * A real offer from node-datachannel, as a browser's would be: VP8 video, Opus audio where asked, and the data
 * channels.
 */
async function realOffer(withAudio = false): Promise<string> {
  const pc = new PeerConnection('viewer', { iceServers: [] });
  peers.push(pc);
  const video = new Video('0', 'RecvOnly');
  video.addVP8Codec(96);
  pc.addTrack(video);
  if (withAudio) {
    const audio = new Audio('1', 'RecvOnly');
    audio.addOpusCodec(111);
    pc.addTrack(audio);
  }
  const sdp = new Promise<string>((resolve) => pc.onLocalDescription((text) => resolve(text)));
  pc.createDataChannel('input');
  return sdp;
}

const rules = { queries: new Set<string>(), controls: () => true };
const options = {
  host: '127.0.0.1',
  mediaPort: 0,
  watchOnly: false,
  ticket: null,
  silenceTimeoutMs: 15_000,
  zeroPlayoutDelay: false,
  audio: false,
};

/** The answer's media section of `kind`. */
function section(answer: string, kind: string): string {
  return answer.split(/(?=^m=)/m).find((s) => s.startsWith(`m=${kind}`)) ?? '';
}

/** A viewer that answered `offer`, and its answer. */
async function answered(offer: string, info: ReturnType<typeof parseOffer>, given = options) {
  const viewer = await Viewer.open(given, rules);
  return { viewer, answer: await viewer.answer(offer, info) };
}

describe("a viewer's answer", () => {
  it('refuses, as the offer’s fault, an offer that passes the parser but not the WebRTC stack', async () => {
    // Text after the fingerprint's last byte: every character is one SDP allows, so only
    // libdatachannel notices. The fuzzing of the WHEP endpoint found this one.
    const offer = (await realOffer()).replace(/^(a=fingerprint:sha-256 \S+)$/m, '$1%ff%fe');
    const info = parseOffer(offer);
    const viewer = await Viewer.open(options, rules);
    const closed = new Promise<void>((resolve) => viewer.once('closed', resolve));
    const answer = viewer.answer(offer, info);
    await expect(answer).rejects.toBeInstanceOf(OfferError);
    await expect(answer).rejects.toThrow(/refused: .*fingerprint/);
    // A viewer whose offer failed is closed, and says so (the stream server then gives its places back).
    await closed;
    expect(viewer.isClosed).toBe(true);
  });

  it('answers the playout-delay extension the offer has, only when asked to', async () => {
    const offer = (await realOffer()).replace(/^(a=mid:0)\r?$/m, `$1\r\na=extmap:6 ${PLAYOUT_DELAY_URI}\r`);
    const info = parseOffer(offer);
    expect(info.playoutDelayExtId).toBe(6);
    for (const zeroPlayoutDelay of [true, false]) {
      const { viewer, answer } = await answered(offer, info, { ...options, zeroPlayoutDelay });
      viewer.close();
      expect(answer.includes(`a=extmap:6 ${PLAYOUT_DELAY_URI}`)).toBe(zeroPlayoutDelay);
      expect(viewer.playoutDelayExtId).toBe(zeroPlayoutDelay ? 6 : null);
    }
  });

  it('sends sound only where the application has some and the offer asks for Opus', async () => {
    const offer = await realOffer(true);
    const info = parseOffer(offer);
    expect(info).toMatchObject({ audioMid: '1', audioPayloadType: 111 });
    for (const audio of [true, false]) {
      const { viewer, answer } = await answered(offer, info, { ...options, audio });
      viewer.close();
      const sound = section(answer, 'audio');
      // An application without sound makes the section inactive, and the video is answered either way.
      expect(sound.includes('a=sendonly')).toBe(audio);
      expect(sound.includes('a=inactive')).toBe(!audio);
      expect(sound.includes('a=msid:streamgate audio')).toBe(audio);
      expect(viewer.audio !== null).toBe(audio);
      expect(section(answer, 'video')).toMatch(/^m=video [1-9]\d* .*\r\n[\s\S]*a=sendonly/);
    }
  });

  it('answers an offer without audio (an older client) with video only', async () => {
    const offer = await realOffer(false);
    const info = parseOffer(offer);
    expect(info.audioMid).toBeNull();
    const { viewer, answer } = await answered(offer, info, { ...options, audio: true });
    viewer.close();
    expect(section(answer, 'audio')).toBe('');
    expect(viewer.audio).toBeNull();
  });
});
