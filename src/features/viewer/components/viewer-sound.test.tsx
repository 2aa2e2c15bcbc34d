import { fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
// The player's own test double (jsdom has no WebRTC), not a part of its surface: only tests reach inside.
// eslint-disable-next-line no-restricted-imports
import { FakePeerConnection } from '../../../player/testing/fake-peer-connection';
import { ready, sessionId } from '../../../test/fixtures';
import { renderRoute } from '../../../test/render';
import { api, http, HttpResponse, server } from '../../../test/server';
import { SOUND_HINT } from './sound-control';

// The viewer is lazy-loaded; its first import in a test file can take seconds on a busy machine.
const loading = { timeout: 10_000 };

/** The answer of an application without sound: it leaves the offered audio out. */
const answer =
  'v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=candidate:1 1 udp 2130706431 127.0.0.1 47002 typ host\r\n';

const ticket = { ticket: 'watch-ticket', scope: 'watch', expires_at: '2030-01-01T00:00:00Z' };

/** The page over a fake peer connection, whose application answers with video only. */
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

/** Waits for the answer, then the application's video arrives and its first frame shows. */
async function playing() {
  const stream = await screen.findByLabelText<HTMLVideoElement>(/Session stream/, {}, loading);
  await vi.waitFor(() => expect(FakePeerConnection.created.at(-1)?.remoteDescription).toBeTruthy());
  const peer = FakePeerConnection.created.at(-1)!;
  peer.fireTrack('video');
  fireEvent(stream, new Event('loadeddata'));
  expect(await screen.findByText('Playing')).toBeInTheDocument();
  return { stream, peer, stage: () => stream.parentElement?.dataset.sound };
}

describe('ViewerPage sound', () => {
  it('plays an application without sound with nothing about sound', async () => {
    renderRoute(`/sessions/${sessionId}?mode=watch`);
    const { stream, stage } = await playing();
    expect(stream.srcObject).toBe(FakePeerConnection.created.at(-1)?.remoteStream);
    expect(stage()).toBe('none');
    expect(screen.queryByRole('button', { name: /mute/i })).not.toBeInTheDocument();
    expect(screen.queryByRole('slider', { name: 'Volume' })).not.toBeInTheDocument();
  });

  it("lets a watch-only viewer hear the application's sound once a key is pressed", async () => {
    renderRoute(`/sessions/${sessionId}?mode=watch`);
    const { stream, peer, stage } = await playing();
    peer.fireTrack('audio');
    expect(await screen.findByRole('button', { name: 'Unmute' })).toBeInTheDocument();
    expect(screen.getByText(SOUND_HINT)).toBeInTheDocument();
    expect(stage()).toBe('muted');
    expect(stream.muted).toBe(true);
    expect((stream.srcObject as MediaStream).getTracks().map((t) => t.kind)).toEqual(['video', 'audio']);
    fireEvent.keyDown(document.body, { key: 'a' });
    expect(await screen.findByRole('button', { name: 'Mute' })).toBeInTheDocument();
    expect(stage()).toBe('on');
    expect(stream.muted).toBe(false);
    // Ctrl+Shift+M mutes again, and the choice is kept.
    fireEvent.keyDown(window, { key: 'M', ctrlKey: true, shiftKey: true });
    expect(await screen.findByRole('button', { name: 'Unmute' })).toBeInTheDocument();
    expect(stream.muted).toBe(true);
  });
});
