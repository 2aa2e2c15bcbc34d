/**
 * People together in the viewer (protocol/people.ts), over a fake peer connection: the stream server's
 * `people`, `pointer` and `removed` arrive on the messages channel, and what a person does there is read
 * back from what the page sent on it.
 */
import { act, fireEvent, screen, waitForElementToBeRemoved, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PeoplePayload } from '../../../player';
import { ready, sessionId } from '../../../test/fixtures';
import { narrowScreen } from '../../../test/narrow-screen';
import { renderRoute } from '../../../test/render';
import { encodeWatchLink } from '../api/watch-link';
import { playing, withFakeStream } from '../testing/fake-stream';

withFakeStream('control');

const ada = { id: 'owner-1', name: 'Ada', role: 'owner', asking: false } as const;
const guest1 = { id: 'guest-1', name: 'Guest 1', role: 'watcher', asking: false } as const;
const guest2 = { id: 'guest-2', name: 'Guest 2', role: 'watcher', asking: false } as const;

/** The viewer at `path`, playing, its messages channel open. */
async function opened(path: string) {
  renderRoute(path);
  const { stream, peer } = await playing();
  const channel = peer.channel('messages');
  channel.open();
  const receive = (event_type: string, payload: unknown) =>
    act(() => channel.receive(JSON.stringify({ event_type, payload })));
  return {
    stream,
    peer,
    receive,
    people: (payload: PeoplePayload) => receive('people', payload),
    /** What the page asked the stream server, in order (the keep-alives left out). */
    sent: () =>
      channel.sent
        .map((s) => JSON.parse(s) as { event_type: string })
        .filter((m) => m.event_type !== 'keepAlive'),
  };
}

/** Opens the People panel from the toolbar. */
async function openPanel(user: ReturnType<typeof userEvent.setup>) {
  await user.click(screen.getByRole('button', { name: /^People: / }));
  return screen.findByRole('dialog', { name: 'People' });
}

describe('the people of a session, for its owner', () => {
  it('lists everyone in the order they joined, with who is in control and who is asking', async () => {
    const user = userEvent.setup();
    const h = await opened(`/sessions/${sessionId}`);
    // Until the application says who is here, the button waits.
    expect(screen.getByRole('button', { name: 'People' })).toBeDisabled();
    await h.people({
      you: 'owner-1',
      controller: 'owner-1',
      people: [ada, guest1, { ...guest2, asking: true }],
    });
    const button = screen.getByRole('button', { name: 'People: 3 people connected, 1 asking for control' });
    expect(button).toHaveTextContent('3');
    const panel = await openPanel(user);
    // At the side of a wide screen, beside the picture.
    expect(panel.closest('.MuiDrawer-root')).toHaveClass('MuiDrawer-anchorRight');
    const rows = within(within(panel).getByRole('list', { name: 'People in this session' })).getAllByRole(
      'listitem',
    );
    expect(rows.map((row) => row.textContent)).toEqual([
      expect.stringMatching(/^AAda \(you\)Owner · in control$/),
      expect.stringMatching(/^GGuest 1Watcher.*Give control.*Remove$/),
      expect.stringMatching(/^GGuest 2Watcher · asking for control.*Give control.*Remove$/),
    ]);
    expect(
      within(panel).getByText('You are in control: your keys and pointer reach the program.'),
    ).toBeVisible();
    // Nobody to take control from, and nobody gives control to themselves.
    expect(within(panel).queryByRole('button', { name: 'Take control' })).not.toBeInTheDocument();
    expect(within(panel).queryByRole('button', { name: /Give control to Ada/ })).not.toBeInTheDocument();
    expect(within(panel).queryByRole('button', { name: 'Remove Ada' })).not.toBeInTheDocument();
    // Keyboard alone: Escape closes it, and focus goes back to the button.
    await user.keyboard('{Escape}');
    await waitForElementToBeRemoved(() => screen.queryByRole('dialog', { name: 'People' }));
    expect(button).toHaveFocus();
  });

  it('gives control, takes it back, and says who has it beside the title', async () => {
    const user = userEvent.setup();
    const h = await opened(`/sessions/${sessionId}`);
    await h.people({ you: 'owner-1', controller: 'owner-1', people: [ada, guest1] });
    expect(screen.getByText('You are in control')).toBeInTheDocument();
    const panel = await openPanel(user);
    await user.click(within(panel).getByRole('button', { name: 'Give control to Guest 1' }));
    expect(h.sent()).toEqual([{ event_type: 'controlGive', payload: { to: 'guest-1' } }]);
    await h.people({ you: 'owner-1', controller: 'guest-1', people: [ada, guest1] });
    expect(screen.getByText('Guest 1 is in control')).toBeInTheDocument();
    expect(within(panel).getByText('Guest 1 is in control.')).toBeInTheDocument();
    // Its own giving is no news to the giver.
    expect(screen.queryByText(/is in control now|took control/)).not.toBeInTheDocument();
    // Its picture takes no input while Guest 1 has control.
    expect(h.stream).toHaveAccessibleName('Session stream (someone else is in control)');
    expect(h.stream).toHaveAttribute('tabindex', '-1');
    await user.click(within(panel).getByRole('button', { name: 'Take control' }));
    expect(h.sent().at(-1)).toEqual({ event_type: 'controlTake', payload: {} });
    await h.people({ you: 'owner-1', controller: 'owner-1', people: [ada, guest1] });
    expect(screen.getByText('You are in control')).toBeInTheDocument();
    expect(h.stream).toHaveAccessibleName('Session stream');
  });

  it('removes a watcher only once the owner confirms, saying the link will not let them back', async () => {
    const user = userEvent.setup();
    const h = await opened(`/sessions/${sessionId}`);
    await h.people({ you: 'owner-1', controller: 'owner-1', people: [ada, guest1, guest2] });
    const panel = await openPanel(user);
    await user.click(within(panel).getByRole('button', { name: 'Remove Guest 2' }));
    const confirm = await screen.findByRole('dialog', { name: 'Remove Guest 2?' });
    expect(confirm).toHaveTextContent('will not be able to come back with the same link');
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    await waitForElementToBeRemoved(confirm);
    expect(h.sent()).toEqual([]);
    await user.click(within(panel).getByRole('button', { name: 'Remove Guest 2' }));
    await user.click(
      within(await screen.findByRole('dialog', { name: 'Remove Guest 2?' })).getByRole('button', {
        name: 'Remove',
      }),
    );
    expect(h.sent()).toEqual([{ event_type: 'viewerRemove', payload: { id: 'guest-2' } }]);
  });

  it('tells the owner when someone asks for control, with a way to give it at once', async () => {
    const user = userEvent.setup();
    const h = await opened(`/sessions/${sessionId}`);
    await h.people({ you: 'owner-1', controller: 'owner-1', people: [ada, guest1] });
    expect(screen.queryByText(/asks for control/)).not.toBeInTheDocument();
    await h.people({ you: 'owner-1', controller: 'owner-1', people: [ada, { ...guest1, asking: true }] });
    const toast = screen.getByText('Guest 1 asks for control.').closest<HTMLElement>('[role="alert"]')!;
    await user.click(within(toast).getByRole('button', { name: 'Give control' }));
    expect(h.sent()).toEqual([{ event_type: 'controlGive', payload: { to: 'guest-1' } }]);
    expect(screen.queryByText('Guest 1 asks for control.')).not.toBeInTheDocument();
  });

  it('opens the panel from the bottom on a phone', async () => {
    narrowScreen();
    const user = userEvent.setup();
    const h = await opened(`/sessions/${sessionId}`);
    await h.people({ you: 'owner-1', controller: 'owner-1', people: [ada, guest1] });
    const panel = await openPanel(user);
    expect(panel.closest('.MuiDrawer-root')).toHaveClass('MuiDrawer-anchorBottom');
  });
});

describe('the people of a session, for a watcher', () => {
  afterEach(() => vi.useRealTimers());

  it('asks for control and stops asking', async () => {
    const user = userEvent.setup();
    const h = await opened(`/sessions/${sessionId}?mode=watch`);
    await h.people({ you: 'guest-1', controller: 'owner-1', people: [ada, guest1] });
    expect(screen.getByText('Ada is in control')).toBeInTheDocument();
    const panel = await openPanel(user);
    // A watcher gives, takes and removes nothing.
    expect(
      within(panel).queryByRole('button', { name: /Give control|Remove|Take control/ }),
    ).not.toBeInTheDocument();
    await user.click(within(panel).getByRole('button', { name: 'Ask for control' }));
    expect(h.sent()).toEqual([{ event_type: 'controlRequest', payload: { asking: true } }]);
    await h.people({ you: 'guest-1', controller: 'owner-1', people: [ada, { ...guest1, asking: true }] });
    // Nobody is told of their own asking.
    expect(screen.queryByText(/asks for control/)).not.toBeInTheDocument();
    await user.click(within(panel).getByRole('button', { name: 'Stop asking' }));
    expect(h.sent().at(-1)).toEqual({ event_type: 'controlRequest', payload: { asking: false } });
  });

  it('has keys and pointer at once when given control, and is told when it is taken back', async () => {
    const h = await opened(`/sessions/${sessionId}?mode=watch`);
    await h.people({ you: 'guest-1', controller: 'owner-1', people: [ada, guest1] });
    expect(h.stream).toHaveAccessibleName('Session stream (watch only)');
    expect(screen.queryByRole('region', { name: 'Clipboard' })).not.toBeInTheDocument();
    const input = h.peer.channel('input');
    input.open();
    await h.people({ you: 'guest-1', controller: 'guest-1', people: [ada, guest1] });
    expect(screen.getByText('You are in control')).toBeInTheDocument();
    // The clipboard follows control.
    expect(await screen.findByRole('region', { name: 'Clipboard' })).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent(
      'You are in control: your keys and pointer reach the program.',
    );
    expect(h.stream).toHaveAccessibleName('Session stream');
    expect(h.stream).toHaveAttribute('tabindex', '0');
    act(() => h.stream.focus());
    fireEvent.keyDown(h.stream, { key: 'a', code: 'KeyA' });
    expect(input.sent.map((s) => JSON.parse(s) as unknown)).toContainEqual(
      expect.objectContaining({ type: 'keydown', key: 'a' }),
    );
    await h.people({ you: 'guest-1', controller: 'owner-1', people: [ada, guest1] });
    expect(await screen.findByText('Ada took control back.')).toBeInTheDocument();
    expect(h.stream).toHaveAttribute('tabindex', '-1');
    expect(screen.queryByRole('region', { name: 'Clipboard' })).not.toBeInTheDocument();
  });

  it('draws the pointer of the one in control where its stream pixel shows, and hides it when it stands still', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const h = await opened(`/sessions/${sessionId}?mode=watch`);
    // A 1600x900 stream in an 800x600 element: half size, 75 px bars above and below.
    for (const [name, value] of Object.entries({
      clientWidth: 800,
      clientHeight: 600,
      videoWidth: 1600,
      videoHeight: 900,
    }))
      Object.defineProperty(h.stream, name, { value, configurable: true });
    await h.people({ you: 'guest-1', controller: 'owner-1', people: [ada, guest1] });
    await h.receive('pointer', { x: 100, y: 200 });
    const pointer = screen.getByRole('img', { name: 'Ada’s pointer' });
    // The arrow's tip at the pixel's centre: (100.5 / 2, 75 + 200.5 / 2), drawn one pixel in.
    expect(pointer.style.left).toBe('49.25px');
    expect(pointer.style.top).toBe('174.25px');
    expect(pointer).toHaveTextContent('Ada');
    await act(() => vi.advanceTimersByTimeAsync(4000));
    await h.receive('pointer', { x: 1598, y: 0 });
    expect(screen.getByRole('img', { name: 'Ada’s pointer' }).style.left).toBe('798.25px');
    await act(() => vi.advanceTimersByTimeAsync(4000));
    expect(screen.getByRole('img', { name: 'Ada’s pointer' })).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(screen.queryByRole('img', { name: 'Ada’s pointer' })).not.toBeInTheDocument();
    // It moves again, then control comes to this watcher: its own pointer is its hand's, none is drawn.
    await h.receive('pointer', { x: 10, y: 10 });
    expect(screen.getByRole('img', { name: 'Ada’s pointer' })).toBeInTheDocument();
    await h.people({ you: 'guest-1', controller: 'guest-1', people: [ada, guest1] });
    expect(screen.queryByRole('img', { name: /pointer/ })).not.toBeInTheDocument();
  });

  it('shows a removed watcher the reason in place of the picture, with no way to reconnect', async () => {
    const link = { session: sessionId, ticket: 'link-ticket', routes: ready.routes };
    const h = await opened(encodeWatchLink('', link));
    await h.people({ you: 'guest-1', controller: 'owner-1', people: [ada, guest1] });
    await h.receive('removed', {});
    const reason = await screen.findByText("The session's owner removed you from this session.");
    expect(reason.closest('[role="alert"]')).toHaveTextContent(/^Removed/);
    expect(screen.getByTestId('player-state')).toHaveTextContent('Removed');
    expect(h.peer.closed).toBe(true);
    for (const name of [/Reconnect/, /Retry/, /^People/])
      expect(screen.queryByRole('button', { name })).not.toBeInTheDocument();
  });
});
