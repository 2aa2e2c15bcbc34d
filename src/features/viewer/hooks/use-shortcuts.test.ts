import { renderHook } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { isMuteShortcut, isViewerShortcut, useViewerShortcuts } from './use-shortcuts';

describe('viewer shortcuts', () => {
  it('keeps Ctrl+Shift+S, Ctrl+Shift+F and Ctrl+Shift+M, forwards the rest', () => {
    expect(isViewerShortcut(new KeyboardEvent('keydown', { key: 'S', ctrlKey: true, shiftKey: true }))).toBe(
      true,
    );
    expect(isViewerShortcut(new KeyboardEvent('keydown', { key: 'f', ctrlKey: true, shiftKey: true }))).toBe(
      true,
    );
    expect(isViewerShortcut(new KeyboardEvent('keydown', { key: 'M', ctrlKey: true, shiftKey: true }))).toBe(
      true,
    );
    expect(isMuteShortcut(new KeyboardEvent('keydown', { key: 'M', ctrlKey: true, shiftKey: true }))).toBe(
      true,
    );
    expect(isMuteShortcut(new KeyboardEvent('keydown', { key: 'S', ctrlKey: true, shiftKey: true }))).toBe(
      false,
    );
    expect(isViewerShortcut(new KeyboardEvent('keydown', { key: 's', ctrlKey: true }))).toBe(false);
    expect(isViewerShortcut(new KeyboardEvent('keydown', { key: 'w' }))).toBe(false);
  });

  it('calls the handler of each shortcut once per press', () => {
    const toggleStats = vi.fn();
    const toggleFullscreen = vi.fn();
    const toggleMute = vi.fn();
    const { unmount } = renderHook(() => useViewerShortcuts({ toggleStats, toggleFullscreen, toggleMute }));
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'S', ctrlKey: true, shiftKey: true }));
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'F', ctrlKey: true, shiftKey: true }));
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'M', ctrlKey: true, shiftKey: true }));
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'x', ctrlKey: true, shiftKey: true }));
    expect(toggleStats).toHaveBeenCalledTimes(1);
    expect(toggleFullscreen).toHaveBeenCalledTimes(1);
    expect(toggleMute).toHaveBeenCalledTimes(1);
    unmount();
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'S', ctrlKey: true, shiftKey: true }));
    expect(toggleStats).toHaveBeenCalledTimes(1);
  });
});
