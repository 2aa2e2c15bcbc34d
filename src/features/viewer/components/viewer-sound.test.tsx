import { fireEvent, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
// The player's own test double (jsdom has no WebRTC), not a part of its surface: only tests reach inside.
// eslint-disable-next-line no-restricted-imports
import { FakePeerConnection } from '../../../player/testing/fake-peer-connection';
import { sessionId } from '../../../test/fixtures';
import { renderRoute } from '../../../test/render';
import { playing, withFakeStream } from '../testing/fake-stream';
import { SOUND_HINT } from './sound-control';

withFakeStream('watch');

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
