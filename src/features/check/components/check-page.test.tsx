/** The connection check page: its steps in words and icons, the failed step named with what to do, its session ended. */
import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sessionId } from '../../../test/fixtures';
import { renderRoute } from '../../../test/render';
import { api, http, HttpResponse, server } from '../../../test/server';
import { checkService } from '../testing/check-service';
import { FakeNetworkPeer, resetFakeNetwork, showsFirstFrame } from '../testing/fake-network';

beforeEach(() => {
  // Time runs on its own (the page loads lazily), and is moved on by hand through the check's waits.
  vi.useFakeTimers({ shouldAdvanceTime: true });
  resetFakeNetwork();
  vi.stubGlobal('RTCPeerConnection', FakeNetworkPeer);
  vi.spyOn(HTMLMediaElement.prototype, 'play').mockImplementation(showsFirstFrame);
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

/** Moves time on until the check has finished (its button is enabled again). */
async function finished() {
  const button = await screen.findByRole('button', { name: 'Run the check' });
  for (let i = 0; i < 1_000 && (button as HTMLButtonElement).disabled; i += 1)
    await act(() => vi.advanceTimersByTimeAsync(100));
  expect(button).toBeEnabled();
}

/** "<name>: <status words>" of each step, as listed. */
function steps(): string[] {
  const list = screen.getByRole('list', { name: 'Steps of the check' });
  return within(list)
    .getAllByRole('listitem')
    .map((item) => {
      const name = within(item).getByRole('heading').textContent;
      const words = item.querySelector('strong')?.textContent;
      return `${name}: ${words}`;
    });
}

const failure = (name: string) =>
  screen.queryAllByRole('alert').find((a) => a.textContent?.startsWith(`${name} failed`));

describe('the connection check page', () => {
  it('runs on opening, says every step passed in words, plays the first frame, and ends its test session', async () => {
    const asked = checkService();
    renderRoute('/check');
    expect(await screen.findByRole('heading', { level: 1, name: 'Connection check' })).toBeInTheDocument();
    await finished();
    expect(steps()).toEqual([
      "The service's API: Passed",
      'Signaling through the service: Passed',
      'Network: direct, relay over UDP, relay over TCP: Passed',
      'First frame: Passed',
    ]);
    expect(screen.getByRole('status', { name: '' })).toHaveTextContent(
      'Every step passed: this browser can play streams.',
    );
    expect(screen.queryAllByRole('alert').filter((a) => /failed/.test(a.textContent ?? ''))).toEqual([]);
    expect(screen.getByText(/path: relay UDP\.$/)).toBeInTheDocument();
    expect(screen.getByLabelText('Test stream')).toHaveProperty('muted', true);
    expect(asked.ended).toEqual([sessionId]);
  });

  it('names the API step in an alert when the service does not answer, skips the rest, and runs again on request', async () => {
    checkService();
    server.use(http.get(api('/cfg/apps'), () => HttpResponse.error()));
    renderRoute('/check');
    await finished();
    expect(steps()).toEqual([
      "The service's API: Failed",
      'Signaling through the service: Skipped',
      'Network: direct, relay over UDP, relay over TCP: Skipped',
      'First frame: Skipped',
    ]);
    expect(failure("The service's API")).toHaveTextContent(
      /The catalog API did not answer GET .*\/api\/cfg\/apps: .*Check that the service is running/,
    );

    checkService();
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    await user.click(screen.getByRole('button', { name: 'Run the check' }));
    await finished();
    expect(steps().every((s) => s.endsWith(': Passed'))).toBe(true);
    expect(failure("The service's API")).toBeUndefined();
  });

  it('names the network step with the relay’s port when UDP and TCP to it are blocked', async () => {
    resetFakeNetwork({ udp: false, tcp: false });
    const asked = checkService();
    renderRoute('/check');
    await finished();
    expect(steps().slice(2)).toEqual([
      'Network: direct, relay over UDP, relay over TCP: Failed',
      'First frame: Skipped',
    ]);
    expect(failure('Network: direct, relay over UDP, relay over TCP')).toHaveTextContent(
      'The relay at portal.example.com:3478 cannot be reached over UDP or TCP (port 3478 is blocked): ask your ' +
        'network administrator to open port 3478 (UDP and TCP) to portal.example.com, or use another network.',
    );
    expect(asked.ended).toEqual([sessionId]);
  });

  it('passes with a warning in words when only UDP to the relay is blocked', async () => {
    resetFakeNetwork({ udp: false });
    checkService();
    renderRoute('/check');
    await finished();
    expect(steps()[2]).toBe('Network: direct, relay over UDP, relay over TCP: Passed, with a warning');
    expect(
      screen.getByText(
        'Warning: UDP to port 3478 is blocked: the stream will go over TCP, a little slower; ask for UDP to ' +
          'port 3478 to be opened.',
      ),
    ).toBeInTheDocument();
    expect(screen.getByRole('status', { name: '' })).toHaveTextContent(
      'Every step passed: this browser can play streams, with the warning below.',
    );
  });

  it('ends its test session when the page is left while the session is pending', async () => {
    const asked = checkService({ pendingPolls: Infinity });
    const { unmount } = renderRoute('/check');
    await screen.findByText(/Test session .*Waiting for a free GPU/);
    expect(asked.launched).toHaveLength(1);
    unmount();
    await vi.waitFor(() => expect(asked.ended).toEqual([sessionId]));
  });
});
