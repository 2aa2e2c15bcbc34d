/** The player over a fake peer connection and a stubbed fetch that answers WHEP, for the player's tests. */
import { afterEach, beforeEach, vi } from 'vitest';
import { Player } from '../player';
import type { MessageRecord, PlayerOptions, PlayerState } from '../player-types';
import { FakePeerConnection } from './fake-peer-connection';

export const routes = {
  'stream.example.org': [
    { description: 'signaling', protocol: 'TCP', source_port: 49210, destination_port: 49210 },
    { description: 'media', protocol: 'UDP', source_port: 31000, destination_port: 47810 },
  ],
};
export const answer =
  'v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=candidate:1 1 udp 2130706431 127.0.0.1 47810 typ host\r\n';

export interface Harness {
  player: Player;
  states: PlayerState[];
  fetch: ReturnType<typeof vi.fn>;
  ticket: ReturnType<typeof vi.fn>;
  video: HTMLVideoElement;
}

export function whepResponse(n: number) {
  return new Response(answer, { status: 201, headers: { Location: `/whep/r${n}` } });
}

export function setup(overrides: Partial<PlayerOptions> = {}): Harness {
  let posts = 0;
  const fetch = vi.fn(async (_url: string, init?: RequestInit) =>
    init?.method === 'DELETE' ? new Response(null, { status: 204 }) : whepResponse(++posts),
  );
  vi.stubGlobal('fetch', fetch);
  const ticket = vi.fn(async (): Promise<string | undefined> => undefined);
  const video = document.createElement('video');
  // jsdom has no media playback.
  video.play = () => Promise.resolve();
  const player = new Player({
    video,
    routes,
    ticket,
    createPeerConnection: (config) => new FakePeerConnection(config) as unknown as RTCPeerConnection,
    reconnect: { initialDelayMs: 1000, jitter: 0, maxAttempts: 3 },
    resize: { enabled: false },
    ...overrides,
  });
  const states: PlayerState[] = [];
  player.addEventListener('state', (s) => states.push(s));
  return { player, states, fetch, ticket, video };
}

export const posts = (h: Harness) => h.fetch.mock.calls.filter(([, init]) => init?.method === 'POST');
export const lastPeer = () => FakePeerConnection.created.at(-1)!;

export async function play(h: Harness) {
  await vi.advanceTimersByTimeAsync(0);
  lastPeer().fireTrack();
  h.video.dispatchEvent(new Event('loadeddata'));
  await vi.advanceTimersByTimeAsync(0);
}

/**
 * A player playing, both its channels open: `messages` records the message log's events, `receive` is a
 * message from the application's side.
 */
export async function connected(overrides: Partial<PlayerOptions> = {}) {
  const h = setup(overrides);
  const messages: MessageRecord[] = [];
  h.player.addEventListener('message', (m) => messages.push(m));
  h.player.connect();
  await play(h);
  const peer = lastPeer();
  peer.channel('input').open();
  peer.channel('messages').open();
  return { ...h, peer, messages, receive: (data: string) => peer.channel('messages').receive(data) };
}

/** Fake timers and a fresh record of peer connections for each test of the calling file. */
export function withPlayerHarness(): void {
  beforeEach(() => {
    vi.useFakeTimers();
    FakePeerConnection.created = [];
    FakePeerConnection.gatherMs = null;
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });
}
