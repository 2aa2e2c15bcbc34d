import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { sessionId } from '../../../test/fixtures';
import { renderRoute } from '../../../test/render';
import { playing, withFakeStream } from '../testing/fake-stream';

// A 1x1 PNG, as the display host sends it.
const PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/q842iQAAAABJRU5ErkJggg==';

withFakeStream('control');

/** The page playing, its `messages` channel open; `cursor` sends a `cursorImage` event on it. */
async function opened(path: string) {
  renderRoute(path);
  const { stream, peer } = await playing();
  const channel = peer.channel('messages');
  channel.open();
  const send = (event_type: string, payload: Record<string, unknown>) =>
    channel.receive(JSON.stringify({ event_type, payload }));
  return { stream, send, cursor: (payload: Record<string, unknown>) => send('cursorImage', payload) };
}

describe('ViewerPage and the application’s pointer', () => {
  it('shows it as the controlling viewer’s cursor over the stream, none when hidden, and not in the log', async () => {
    const { stream, cursor, send } = await opened(`/sessions/${sessionId}`);
    cursor({ url: PNG, hotspot_x: 4, hotspot_y: 2 });
    expect(stream.style.cursor).toBe(`url("${PNG}") 4 2, default`);
    cursor({ hidden: true });
    expect(stream.style.cursor).toBe('none');
    // An event after them shows in the log; they do not.
    send('clipboard', { text: 'copied' });
    const log = await screen.findByRole('list', { name: 'Message log' });
    expect(await within(log).findByText('Received clipboard')).toBeInTheDocument();
    expect(within(log).queryByText(/cursorImage/)).not.toBeInTheDocument();
  });

  it('leaves a watch-only viewer’s cursor alone: it sees the pointer in the video', async () => {
    const { stream, cursor } = await opened(`/sessions/${sessionId}?mode=watch`);
    cursor({ url: PNG, hotspot_x: 4, hotspot_y: 2 });
    cursor({ hidden: true });
    expect(stream.style.cursor).toBe('');
  });
});
