import { fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useRef } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SOUND_KEY } from '../api/sound-choice';
import { useSound } from '../hooks/use-sound';
import { SOUND_HINT, SoundControl, SoundHint } from './sound-control';

/** The control over a video element, as the viewer page has them. */
function Viewer({ hasSound }: { hasSound: boolean }) {
  const video = useRef<HTMLVideoElement>(null);
  const sound = useSound(video, hasSound);
  return (
    <div data-sound={sound.state}>
      <div data-testid="stage">
        <video ref={video} autoPlay muted aria-label="Session stream" />
        <SoundHint sound={sound} />
      </div>
      <SoundControl sound={sound} />
      <p>Elsewhere on the page</p>
    </div>
  );
}

const video = () => screen.getByLabelText<HTMLVideoElement>('Session stream');
const soundState = () => screen.getByTestId('stage').parentElement?.dataset.sound;
const volume = () => screen.getByRole('slider', { name: 'Volume' });

/** The page as the browser sees it: whether it has had a click or key (jsdom knows no activation). */
function activated(hasBeenActive: boolean) {
  Object.defineProperty(navigator, 'userActivation', { value: { hasBeenActive }, configurable: true });
}

afterEach(() => {
  Reflect.deleteProperty(navigator, 'userActivation');
});

describe('SoundControl', () => {
  it('shows nothing about sound where the session has none', () => {
    render(<Viewer hasSound={false} />);
    expect(screen.queryByRole('button', { name: /mute/i })).not.toBeInTheDocument();
    expect(screen.queryByRole('slider', { name: 'Volume' })).not.toBeInTheDocument();
    expect(screen.queryByText(SOUND_HINT)).not.toBeInTheDocument();
    expect(soundState()).toBe('none');
  });

  it('starts muted without activation and says so, and a click anywhere unmutes', () => {
    activated(false);
    const { rerender } = render(<Viewer hasSound={false} />);
    rerender(<Viewer hasSound />);
    expect(screen.getByRole('button', { name: 'Unmute' })).toHaveAccessibleDescription(SOUND_HINT);
    expect(screen.getByRole('slider', { name: 'Volume' })).toBeInTheDocument();
    expect(video().muted).toBe(true);
    expect(soundState()).toBe('muted');
    fireEvent.pointerDown(screen.getByText('Elsewhere on the page'));
    expect(screen.getByRole('button', { name: 'Mute' })).toBeInTheDocument();
    expect(screen.queryByText(SOUND_HINT)).not.toBeInTheDocument();
    expect(video().muted).toBe(false);
    expect(soundState()).toBe('on');
    // The page's own unmuting is no choice of the person's: nothing is kept.
    expect(localStorage.getItem(SOUND_KEY)).toBeNull();
  });

  it('unmutes at the first key pressed on the page', () => {
    render(<Viewer hasSound />);
    expect(screen.getByText(SOUND_HINT)).toBeInTheDocument();
    fireEvent.keyDown(document.body, { key: 'a' });
    expect(screen.getByRole('button', { name: 'Mute' })).toBeInTheDocument();
    expect(video().muted).toBe(false);
  });

  it('starts with sound where the page already has activation', () => {
    activated(true);
    render(<Viewer hasSound />);
    expect(screen.getByRole('button', { name: 'Mute' })).toBeInTheDocument();
    expect(screen.queryByText(SOUND_HINT)).not.toBeInTheDocument();
    expect(video().muted).toBe(false);
  });

  it('keeps a mute chosen with the control across a reload, over activation and gestures', () => {
    activated(true);
    const first = render(<Viewer hasSound />);
    fireEvent.click(screen.getByRole('button', { name: 'Mute' }));
    expect(video().muted).toBe(true);
    first.unmount();
    render(<Viewer hasSound />);
    expect(screen.getByRole('button', { name: 'Unmute' })).toBeInTheDocument();
    expect(screen.queryByText(SOUND_HINT)).not.toBeInTheDocument();
    fireEvent.keyDown(document.body, { key: 'a' });
    expect(video().muted).toBe(true);
  });

  it('is used with the keyboard alone: the button, and the volume with the arrow keys', async () => {
    const user = userEvent.setup({ delay: null });
    render(<Viewer hasSound />);
    screen.getByRole('button', { name: 'Unmute' }).focus();
    // A key on the control is the control's: Enter unmutes once, and does not mute again at once.
    await user.keyboard('{Enter}');
    expect(screen.getByRole('button', { name: 'Mute' })).toBeInTheDocument();
    expect(video().muted).toBe(false);
    await user.keyboard('{Enter}');
    expect(screen.getByRole('button', { name: 'Unmute' })).toBeInTheDocument();
    await user.tab();
    expect(volume()).toHaveFocus();
    // Muted, the slider stands at 0: turning it up is asking to hear it, at the volume chosen.
    await user.keyboard('{ArrowRight}');
    expect(video().volume).toBeCloseTo(0.05);
    expect(video().muted).toBe(false);
    expect(volume()).toHaveAttribute('aria-valuetext', '5 %');
    expect(JSON.parse(localStorage.getItem(SOUND_KEY) ?? 'null')).toEqual({ muted: false, volume: 0.05 });
    await user.keyboard('{ArrowRight}{ArrowRight}');
    expect(video().volume).toBeCloseTo(0.15);
  });

  it('shows the volume at 0 while muted, and the volume heard once unmuted', () => {
    activated(false);
    render(<Viewer hasSound />);
    expect(video().volume).toBe(1);
    expect(screen.getByRole('button', { name: 'Unmute' })).toBeInTheDocument();
    expect(volume()).toHaveValue('0');
    expect(volume()).toHaveAttribute('aria-valuetext', 'Muted');
    fireEvent.pointerDown(screen.getByText('Elsewhere on the page'));
    expect(volume()).toHaveValue('100');
    expect(volume()).toHaveAttribute('aria-valuetext', '100 %');
    fireEvent.click(screen.getByRole('button', { name: 'Mute' }));
    expect(volume()).toHaveValue('0');
    // The volume itself is kept for when the sound comes back.
    expect(video().volume).toBe(1);
  });

  it('says how to hear the sound over the picture, not in the toolbar, and lets clicks through to it', () => {
    activated(false);
    render(<Viewer hasSound />);
    const hint = screen.getByText(SOUND_HINT);
    expect(screen.getByTestId('stage')).toContainElement(hint);
    expect(hint).toHaveStyle({ position: 'absolute', pointerEvents: 'none' });
  });

  it('stays muted and playing where unmuting would make the browser pause the video', () => {
    render(<Viewer hasSound />);
    const element = video();
    // As Chromium does to an autoplaying video unmuted without activation.
    Object.defineProperty(element, 'paused', { get: () => !element.muted, configurable: true });
    const play = vi.fn(() => Promise.resolve());
    element.play = play;
    fireEvent.keyDown(document.body, { key: 'Escape' });
    expect(element.muted).toBe(true);
    expect(play).toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Unmute' })).toBeInTheDocument();
    expect(screen.getByText(SOUND_HINT)).toBeInTheDocument();
  });
});
