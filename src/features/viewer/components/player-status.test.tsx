import { act, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PlayerState } from '../../../player';
import { CHECK_HINT_TEXT, NO_PICTURE_TEXT, PlayerStatus, STALLED_TEXT } from './player-status';
import { NO_PICTURE_MS } from './use-no-picture';

const status = (state: PlayerState) => (
  <MemoryRouter>
    <PlayerStatus state={state} onRetry={() => undefined} onReconnect={() => undefined} />
  </MemoryRouter>
);
const checkLink = () => screen.queryByRole('link', { name: 'Check the connection' });
const reconnecting: PlayerState = {
  kind: 'reconnecting',
  attempt: 1,
  delayMs: 1000,
  retryAt: Date.now() + 1000,
  reason: 'No video arrived in time.',
};

describe('PlayerStatus without a picture', () => {
  afterEach(() => vi.useRealTimers());

  it('says so in words after 10 s, across the player’s own reconnects, with what to try', () => {
    vi.useFakeTimers();
    const { rerender } = render(status({ kind: 'connecting', attempt: 1 }));
    expect(screen.getByText('Connecting to the session…')).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(2_000));
    rerender(status({ kind: 'waiting-for-video', attempt: 1 }));
    act(() => vi.advanceTimersByTime(NO_PICTURE_MS - 2_001));
    expect(screen.queryByText(NO_PICTURE_TEXT)).not.toBeInTheDocument();
    act(() => vi.advanceTimersByTime(1));
    expect(screen.getByRole('status')).toHaveTextContent(NO_PICTURE_TEXT);
    expect(NO_PICTURE_TEXT).toMatch(/No picture has arrived in 10 s\. .*wait.*reconnect.*end the session/);
    // The player gives up on its attempt and tries again: still no picture, still said.
    rerender(status(reconnecting));
    expect(screen.getByRole('status')).toHaveTextContent(NO_PICTURE_TEXT);
    rerender(status({ kind: 'connecting', attempt: 2 }));
    expect(screen.getByRole('status')).toHaveTextContent(NO_PICTURE_TEXT);
  });

  it('counts again from a picture: a lost connection waits its own 10 s before saying so', () => {
    vi.useFakeTimers();
    const { rerender } = render(status({ kind: 'waiting-for-video', attempt: 1 }));
    act(() => vi.advanceTimersByTime(NO_PICTURE_MS));
    expect(screen.getByText(NO_PICTURE_TEXT)).toBeInTheDocument();
    rerender(status({ kind: 'playing' }));
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
    rerender(status(reconnecting));
    act(() => vi.advanceTimersByTime(NO_PICTURE_MS - 1));
    expect(screen.queryByText(NO_PICTURE_TEXT)).not.toBeInTheDocument();
    act(() => vi.advanceTimersByTime(1));
    expect(screen.getByText(NO_PICTURE_TEXT)).toBeInTheDocument();
  });
});

describe('PlayerStatus pointing to the connection check', () => {
  afterEach(() => vi.useRealTimers());

  it('links to /check once the stream has not started 10 s after connecting began, across reconnects', () => {
    vi.useFakeTimers();
    const { rerender } = render(status({ kind: 'connecting', attempt: 1 }));
    rerender(status({ kind: 'waiting-for-video', attempt: 1 }));
    act(() => vi.advanceTimersByTime(NO_PICTURE_MS - 1));
    expect(checkLink()).not.toBeInTheDocument();
    expect(screen.queryByText(CHECK_HINT_TEXT)).not.toBeInTheDocument();
    act(() => vi.advanceTimersByTime(1));
    expect(checkLink()).toHaveAttribute('href', '/check');
    // Beside the state's own words, which stay.
    const shown = screen.getByRole('status');
    expect(shown).toHaveTextContent('Waiting for video…');
    expect(within(shown).getByText(CHECK_HINT_TEXT)).toBeInTheDocument();
    expect(CHECK_HINT_TEXT).toBe(
      'The stream has not started. The connection check finds what is in the way.',
    );
    rerender(status(reconnecting));
    expect(checkLink()).toBeInTheDocument();
    rerender(status({ kind: 'playing' }));
    expect(checkLink()).not.toBeInTheDocument();
  });

  it('links to /check at once when the player failed, and not for an end or a disconnect', () => {
    vi.useFakeTimers();
    const { rerender } = render(status({ kind: 'failed', reason: 'No video arrived in time.' }));
    expect(screen.getByRole('status')).toHaveTextContent('Could not connect: No video arrived in time.');
    expect(checkLink()).toHaveAttribute('href', '/check');
    expect(screen.getByText(CHECK_HINT_TEXT)).toBeInTheDocument();
    rerender(status({ kind: 'ended', reason: 'This session has ended.' }));
    expect(checkLink()).not.toBeInTheDocument();
    rerender(status({ kind: 'disconnected' }));
    act(() => vi.advanceTimersByTime(NO_PICTURE_MS));
    expect(checkLink()).not.toBeInTheDocument();
  });
});

describe('PlayerStatus at the end', () => {
  const alertOf = (text: string) => screen.getByText(text).closest<HTMLElement>('[role="alert"]')!;

  it('heads a failure "Failed" in red with its icon, the reason once, and what to do next', () => {
    render(
      <MemoryRouter>
        <PlayerStatus
          state={{
            kind: 'ended',
            reason: 'Broken 0.0.1 exited with code 1 before it was ready',
            failed: true,
          }}
          relaunch="/launch?app=broken"
          onRetry={() => undefined}
          onReconnect={() => undefined}
        />
      </MemoryRouter>,
    );
    const alert = alertOf('Broken 0.0.1 exited with code 1 before it was ready');
    expect(within(alert).getByText('Failed')).toHaveClass('MuiAlertTitle-root');
    expect(alert).toHaveClass('MuiAlert-colorError');
    expect(within(alert).getByTestId('ErrorOutlineIcon')).toBeInTheDocument();
    expect(alert).toHaveTextContent(/^FailedBroken 0\.0\.1 exited with code 1 before it was ready/);
    expect(within(alert).getByRole('link', { name: 'Launch again' })).toHaveAttribute(
      'href',
      '/launch?app=broken',
    );
    expect(within(alert).getByRole('link', { name: 'Back to Sessions' })).toHaveAttribute(
      'href',
      '/sessions',
    );
    expect(checkLink()).not.toBeInTheDocument();
  });

  it('heads an end "Ended" in blue, and offers a link’s watcher no way to sessions that are not theirs', () => {
    render(
      <MemoryRouter>
        <PlayerStatus
          state={{ kind: 'ended', reason: 'This session has ended.' }}
          sessions={false}
          onRetry={() => undefined}
          onReconnect={() => undefined}
        />
      </MemoryRouter>,
    );
    const alert = alertOf('This session has ended.');
    expect(within(alert).getByText('Ended')).toHaveClass('MuiAlertTitle-root');
    expect(alert).toHaveClass('MuiAlert-colorInfo');
    expect(within(alert).queryByRole('link')).not.toBeInTheDocument();
  });

  it('says the owner stopped sharing, with nothing to retry', () => {
    render(
      status({
        kind: 'withdrawn',
        reason: 'The owner stopped sharing this session: this link no longer plays.',
      }),
    );
    const alert = alertOf('The owner stopped sharing this session: this link no longer plays.');
    expect(within(alert).getByText('Sharing stopped')).toHaveClass('MuiAlertTitle-root');
    expect(within(alert).getByTestId('LinkOffIcon')).toBeInTheDocument();
    expect(screen.queryByRole('button')).not.toBeInTheDocument();
    expect(screen.queryByText(/Reconnecting/)).not.toBeInTheDocument();
  });
});

describe('PlayerStatus over a picture that stopped', () => {
  it('says so over the frozen picture, and nothing once it plays again', () => {
    const { rerender } = render(status({ kind: 'stalled', since: Date.now() - 1500 }));
    expect(screen.getByRole('status')).toHaveTextContent(STALLED_TEXT);
    expect(STALLED_TEXT).toBe('The picture has stopped. Waiting for it to move again…');
    expect(screen.getByRole('progressbar', { name: 'Waiting for the picture' })).toBeInTheDocument();
    rerender(status({ kind: 'playing' }));
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });
});
