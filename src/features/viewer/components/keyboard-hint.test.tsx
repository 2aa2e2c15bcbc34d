import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KEYBOARD_HINT_MS, KeyboardHint } from './keyboard-hint';

describe('KeyboardHint', () => {
  afterEach(() => vi.useRealTimers());

  it('sits small in a corner, away from the top of the picture, and fades after a few seconds', () => {
    vi.useFakeTimers();
    const { rerender } = render(<KeyboardHint capture="captured" />);
    const hint = screen.getByRole('status', { name: 'Keyboard' });
    expect(hint).toHaveTextContent('Press Esc to release the keyboard');
    expect(hint).toHaveStyle({ bottom: '8px', left: '8px', opacity: '1' });
    expect(getComputedStyle(hint).top).not.toBe('8px');
    act(() => vi.advanceTimersByTime(KEYBOARD_HINT_MS - 1));
    expect(hint).toHaveStyle({ opacity: '1' });
    act(() => vi.advanceTimersByTime(1));
    expect(hint).toHaveStyle({ opacity: '0' });
    // The keyboard changes hands: the new words show, and fade in their turn.
    rerender(<KeyboardHint capture="released" />);
    const released = screen.getByRole('status', { name: 'Keyboard' });
    expect(released).toHaveTextContent('Keyboard released');
    expect(released).toHaveStyle({ opacity: '1' });
    act(() => vi.advanceTimersByTime(KEYBOARD_HINT_MS));
    expect(released).toHaveStyle({ opacity: '0' });
    // And captured again: shown again.
    rerender(<KeyboardHint capture="captured" />);
    expect(screen.getByRole('status', { name: 'Keyboard' })).toHaveStyle({ opacity: '1' });
  });

  it('is not there while the video has no focus', () => {
    render(<KeyboardHint capture="idle" />);
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });
});
