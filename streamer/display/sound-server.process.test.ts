/**
 * A display host's sound with everything real (Xvfb, the program in its sandbox, its PulseAudio server, parec, the
 * stream server and a node-datachannel viewer that offers to receive Opus): a program that plays a 440 Hz tone is
 * heard at 440 Hz; with sound off there is neither a server nor an audio track; and nothing of the sound outlives
 * the host, nor a start that fails after its server started.
 */
import { readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  Audio,
  PeerConnection,
  RtcpReceivingSession,
  Video,
  type DataChannel,
  type Track,
} from 'node-datachannel';
import OpusScript from 'opusscript';
import { afterEach, describe, expect, it } from 'vitest';
import { toneCommand, TONE_FILE } from '../../e2e/support/catalogs.ts';
import { sessionUid } from '../../sandbox/bwrap.ts';
import { partsSeeingPrograms } from '../../test-support/display-parts.ts';
import { processesNamed as processes } from '../../test-support/processes.ts';
import { freePort, freeUdpPort } from '../../test-support/ports.ts';
import { answers, until } from '../../test-support/until.ts';
import { DISPLAY_PARTS, startDisplayHost, type DisplayHost, type DisplayParts } from './display-host.ts';
import { SoundServer } from './sound-server.ts';
import { parseLaunch, sandboxSettings } from '../../protocol/launch.ts';

const root = path.resolve(import.meta.dirname, '../..');
const tone = { command: toneCommand(), env: {} };
const withToneFile = sandboxSettings(JSON.stringify({ files: { root, names: [TONE_FILE] } }));

/** The sound folders of display hosts (sound-server.ts) left in the temporary folder. */
/** The sound folders of the session's user `uid` (others may belong to sessions running beside the tests). */
const soundDirs = (uid: number) =>
  readdirSync(tmpdir()).filter((name) => {
    if (!name.startsWith('streamgate-sound-')) return false;
    try {
      return statSync(path.join(tmpdir(), name)).uid === uid;
    } catch {
      return false; // removed meanwhile
    }
  });

async function hostOptions(audio = true) {
  const signalingPort = await freePort();
  const options = parseLaunch(
    ['--signaling-port', String(signalingPort), '--media-port', String(await freeUdpPort())],
    {},
  );
  options.width = options.maxWidth = 320;
  options.height = options.maxHeight = 200;
  options.audio = audio;
  return { options, uid: sessionUid(signalingPort), base: `http://127.0.0.1:${signalingPort}` };
}

/** The payload of an RTP packet: after its CSRCs and its header extension, without its padding. */
function rtpPayload(packet: Buffer): Buffer {
  let offset = 12 + 4 * ((packet[0] as number) & 0x0f);
  if ((packet[0] as number) & 0x10) offset += 4 + 4 * packet.readUInt16BE(offset + 2);
  const padding = (packet[0] as number) & 0x20 ? (packet[packet.length - 1] as number) : 0;
  return packet.subarray(offset, packet.length - padding);
}

interface Listener {
  pc: PeerConnection;
  /** Held: a native track or channel whose last JS reference is collected goes silent. */
  tracks: Track[];
  channels: DataChannel[];
  answer: string;
  /** Opus payloads received so far. */
  opus: Buffer[];
}

/** A viewer that offers VP8 video and Opus audio (111), both recvonly, and the two data channels. */
async function listen(base: string): Promise<Listener> {
  const pc = new PeerConnection('viewer', { iceServers: [] });
  const video = new Video('0', 'RecvOnly');
  video.addVP8Codec(96);
  const audio = new Audio('1', 'RecvOnly');
  audio.addOpusCodec(111);
  const tracks = [pc.addTrack(video), pc.addTrack(audio)];
  const opus: Buffer[] = [];
  for (const track of tracks) track.setMediaHandler(new RtcpReceivingSession());
  tracks[1]?.onMessage((message) => {
    const packet = Buffer.from(message as Buffer);
    // RTCP (payload types 200-204 in the second byte) shares the port.
    if (packet.length > 12 && ((packet[1] as number) & 0x7f) === 111) opus.push(rtpPayload(packet));
  });
  const offer = new Promise<string>((resolve) => pc.onLocalDescription((text) => resolve(text)));
  const channels = [pc.createDataChannel('input'), pc.createDataChannel('messages')];
  const res = await fetch(`${base}/whep`, {
    method: 'POST',
    headers: { 'content-type': 'application/sdp' },
    body: await offer,
  });
  const answer = await res.text();
  if (res.status !== 201) throw new Error(`POST /whep answered ${res.status}: ${answer}`);
  pc.setRemoteDescription(answer, 'answer');
  return { pc, tracks, channels, answer, opus };
}

/** The frequency of the decoded sound, from its zero crossings (first channel). */
function frequencyOf(payloads: Buffer[]): number {
  const decoder = new OpusScript(48_000, 2);
  let crossings = 0;
  let samples = 0;
  let previous = 0;
  for (const payload of payloads) {
    const pcm = decoder.decode(payload);
    for (let i = 0; i + 4 <= pcm.length; i += 4) {
      const s = pcm.readInt16LE(i);
      if (s >= 0 !== previous >= 0) crossings++;
      previous = s;
      samples++;
    }
  }
  decoder.delete();
  return crossings / 2 / (samples / 48_000);
}

const audioSection = (answer: string) =>
  answer.split(/(?=^m=)/m).find((section) => section.startsWith('m=audio')) ?? '';

let host: DisplayHost | null = null;
let viewer: Listener | null = null;
afterEach(async () => {
  viewer?.pc.close();
  viewer = null;
  await host?.close();
  host = null;
});

describe('the sound of a display host', () => {
  it('sends what its program plays as Opus that decodes to the tone, through a restarted capture too, and leaves nothing behind', async () => {
    const { options, uid, base } = await hostOptions();
    const lines: string[] = [];
    host = await startDisplayHost(options, tone, (line) => lines.push(line), withToneFile);
    await until('the host to be ready', () => answers(`${base}/health`));
    viewer = await listen(base);
    expect(audioSection(viewer.answer)).toMatch(/a=rtpmap:111 opus\/48000\/2/);
    expect(audioSection(viewer.answer)).toMatch(/a=sendonly/);
    const heard = viewer;
    // A second of sound, past the first packets (the decoder's and the tone's start).
    await until('a second of sound', () => heard.opus.length >= 120, 20_000);
    expect(frequencyOf(heard.opus.slice(20))).toBeCloseTo(440, -1);
    const server = processes('pulseaudio', uid);
    const capture = processes('parec', uid);
    expect(server).toHaveLength(1);
    expect(capture).toHaveLength(1);
    expect(lines.filter((line) => /sound/.test(line))).toEqual([]);
    // A capture that dies while the session runs starts again, and the sound goes on.
    process.kill(capture[0] as number, 'SIGKILL');
    await until('a new capture', () => processes('parec', uid).some((pid) => pid !== capture[0]));
    const before = heard.opus.length;
    await until('sound again', () => heard.opus.length >= before + 50, 10_000);
    expect(lines.filter((line) => /sound/.test(line))).toEqual([
      'the sound capture ended (SIGKILL); restarting it',
    ]);
    await host.close();
    host = null;
    expect([...processes('pulseaudio', uid), ...processes('parec', uid)]).toEqual([]);
    expect(soundDirs(uid)).toEqual([]);
  });

  it('has no sound server, no PULSE_SERVER and no audio track when the profile turns sound off', async () => {
    const { options, uid, base } = await hostOptions(false);
    let said = '';
    const parts = partsSeeingPrograms((child) =>
      child.stderr?.on('data', (chunk: Buffer) => (said += chunk.toString())),
    );
    const program = {
      command: ['sh', '-c', 'echo "PULSE_SERVER=${PULSE_SERVER-none}" >&2; exec xterm'],
      env: {},
    };
    host = await startDisplayHost(options, program, () => undefined, sandboxSettings(undefined), parts);
    await until('the host to be ready', () => answers(`${base}/health`));
    viewer = await listen(base);
    expect(audioSection(viewer.answer)).not.toMatch(/a=sendonly|a=sendrecv/);
    expect(said).toContain('PULSE_SERVER=none');
    expect(processes('pulseaudio', uid)).toEqual([]);
    expect(processes('parec', uid)).toEqual([]);
  });

  it('stops its sound server and its capture when a start fails after they started', async () => {
    const { options, uid } = await hostOptions();
    const parts: DisplayParts = {
      ...DISPLAY_PARTS,
      async startEncoder() {
        await until(
          'the sound server and its capture',
          () => processes('pulseaudio', uid).length > 0 && processes('parec', uid).length > 0,
        );
        throw new Error('no encoder here');
      },
    };
    const start = startDisplayHost(options, tone, () => undefined, withToneFile, parts);
    await expect(start).rejects.toThrow('no encoder here');
    expect([...processes('pulseaudio', uid), ...processes('parec', uid)]).toEqual([]);
    expect(soundDirs(uid)).toEqual([]);
  });

  it('says in one line why its server did not start, captures nothing, and offers later viewers no sound', async () => {
    const lines: string[] = [];
    let said: (line: string) => void = () => undefined;
    const logged = new Promise<string>((resolve) => (said = resolve));
    const sound = SoundServer.prepare(process.getuid?.() ?? 0, (line) => (lines.push(line), said(line)));
    if (!sound) throw new Error('no folder');
    try {
      const stop = sound.capture();
      // What the sandbox's shell leaves when pulseaudio fails.
      writeFileSync(
        path.join(sound.hostDir, 'log'),
        'W: [pulseaudio] a warning\nE: [pulseaudio] main.c: boom\n',
      );
      writeFileSync(path.join(sound.hostDir, '.status'), '1\n');
      renameSync(path.join(sound.hostDir, '.status'), path.join(sound.hostDir, 'status'));
      expect(await logged).toBe('no sound: the sound server did not start (E: [pulseaudio] main.c: boom)');
      // Viewers that come later are offered no silent track.
      expect(sound.stream.available).toBe(false);
      await stop();
      expect(lines).toHaveLength(1);
    } finally {
      await sound.close();
    }
  });
});
