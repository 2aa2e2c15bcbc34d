import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../lib/api-client';
import { sessionId } from '../test/fixtures';
import { EndSessionDialog } from './end-session-dialog';

describe('EndSessionDialog', () => {
  it('is closed while no session is named', () => {
    render(<EndSessionDialog sessionId={undefined} ending={false} onCancel={vi.fn()} onConfirm={vi.fn()} />);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('names the session and what ending it does, with the hint of the page, and answers both buttons', async () => {
    const onCancel = vi.fn();
    const onConfirm = vi.fn();
    render(
      <EndSessionDialog
        sessionId={sessionId}
        ending={false}
        hint="To leave it running, use Disconnect instead."
        onCancel={onCancel}
        onConfirm={onConfirm}
      />,
    );
    const dialog = screen.getByRole('dialog', { name: 'End this session?' });
    expect(dialog).toHaveTextContent('This session will be stopped and its application closed.');
    expect(dialog).toHaveTextContent(`Session ${sessionId}`);
    expect(dialog).toHaveTextContent('To leave it running, use Disconnect instead.');
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Keep it' }));
    expect(onCancel).toHaveBeenCalledTimes(1);
    await userEvent.click(within(dialog).getByRole('button', { name: 'End session' }));
    expect(onConfirm).toHaveBeenCalledTimes(1);
  });

  it('leads with what the session runs where the page knows it, the id after it', () => {
    render(
      <EndSessionDialog
        sessionId={sessionId}
        name="USD Viewer 1.2.0 (Light)"
        ending={false}
        onCancel={vi.fn()}
        onConfirm={vi.fn()}
      />,
    );
    const text = screen.getByRole('dialog').textContent ?? '';
    expect(text).toMatch(
      /^End this session\?USD Viewer 1\.2\.0 \(Light\) will be stopped and its application closed\./,
    );
    expect(text.indexOf(sessionId)).toBeGreaterThan(text.indexOf('USD Viewer'));
  });

  it('disables both buttons while ending, and says why the last try failed', () => {
    render(
      <EndSessionDialog
        sessionId={sessionId}
        ending
        error={new ApiError(403, 'Not yours.')}
        onCancel={vi.fn()}
        onConfirm={vi.fn()}
      />,
    );
    const dialog = screen.getByRole('dialog');
    expect(within(dialog).getByRole('button', { name: 'Keep it' })).toBeDisabled();
    expect(within(dialog).getByRole('button', { name: 'End session' })).toBeDisabled();
    expect(within(dialog).getByRole('alert')).toHaveTextContent(
      /You do not have permission to do this: Not yours\./,
    );
  });
});
