/**
 * The viewer page over a fake peer connection (jsdom has no WebRTC), for the page's tests: the service says
 * the session is ready, the application answers with video only, and `playing` brings the page to its first
 * frame.
 */
import { fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, expect, vi } from 'vitest';
// The player's own test double, not a part of its surface: only tests reach inside.
// eslint-disable-next-line no-restricted-imports
import { FakePeerConnection } from '../../../player/testing/fake-peer-connection';
import { ready } from '../../../test/fixtures';
import { api, http, HttpResponse, server } from '../../../test/server';

// The viewer is lazy-loaded; its first import in a test file can take seconds on a busy machine.
const loading = { timeout: 10_000 };

/** The answer of an application without sound: it leaves the offered audio out. */
const answer =
  'v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=candidate:1 1 udp 2130706431 127.0.0.1 47002 typ host\r\n';

/** For each test of the calling file: a ready session whose application answers through a fake peer. */
export function withFakeStream(scope: 'control' | 'watch'): void {
  const ticket = { ticket: `${scope}-ticket`, scope, expires_at: '2030-01-01T00:00:00Z' };
  beforeEach(() => {
    FakePeerConnection.created = [];
    vi.stubGlobal('RTCPeerConnection', FakePeerConnection);
    // jsdom plays no media.
    vi.spyOn(HTMLMediaElement.prototype, 'play').mockResolvedValue(undefined);
    server.use(
      http.get(api('/stream/:id'), () => HttpResponse.json(ready)),
      http.post(api('/stream/:id/tickets'), () => HttpResponse.json(ticket, { status: 201 })),
      http.post('http://127.0.0.1:47001/whep', () =>
        HttpResponse.text(answer, { status: 201, headers: { Location: '/whep/r1' } }),
      ),
      http.delete('http://127.0.0.1:47001/whep/r1', () => new HttpResponse(null, { status: 204 })),
    );
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });
}

/** Waits for the answer, then the application's video arrives and its first frame shows. */
export async function playing() {
  const stream = await screen.findByLabelText<HTMLVideoElement>(/Session stream/, {}, loading);
  await vi.waitFor(() => expect(FakePeerConnection.created.at(-1)?.remoteDescription).toBeTruthy());
  const peer = FakePeerConnection.created.at(-1)!;
  peer.fireTrack('video');
  fireEvent(stream, new Event('loadeddata'));
  // Throws when the page never says so.
  await screen.findByText('Playing');
  return { stream, peer, stage: () => stream.parentElement?.dataset.sound };
}
