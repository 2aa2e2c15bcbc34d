/**
 * A session's sound under browsers' autoplay rules. The video starts muted, which lets it play at once. When
 * the connection brings sound, it is unmuted at once where the person has already clicked or pressed a key
 * on the page; otherwise it waits for their first click or key anywhere on the page (the browser allows no
 * sound before one), and the control says so meanwhile. A mute or volume chosen with the control is kept
 * (sound-choice.ts) and wins: someone who muted stays muted.
 */
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { readSoundChoice, saveSoundChoice, type SoundChoice } from '../api/sound-choice';
import { isMuteShortcut } from './use-shortcuts';

/** What a person hears: no sound in this session, sound muted, or sound on. */
export type SoundState = 'none' | 'muted' | 'on';

/** The sound of the viewer's video, and what the control does to it. */
export interface Sound {
  state: SoundState;
  /** 0 to 1. */
  volume: number;
  /** Muted only because the browser wants a click or key first: any one on the page unmutes. */
  waitingForGesture: boolean;
  toggleMute(): void;
  setVolume(volume: number): void;
  /** The control's element: a click or key inside it is the control's to handle, not a gesture to unmute. */
  controlRef: RefObject<HTMLDivElement | null>;
}

/** Events that grant a page the activation it needs to play sound. */
const GESTURES = ['pointerdown', 'keydown'] as const;

/**
 * Unmutes the video, unless that makes the browser pause it (Chromium pauses an autoplaying video that is
 * unmuted without activation): then it stays muted and playing. True when the sound is on.
 */
export function unmuteSafely(video: HTMLVideoElement): boolean {
  const playing = !video.paused;
  video.muted = false;
  if (!playing || !video.paused) return true;
  video.muted = true;
  video.play?.()?.catch?.(() => undefined);
  return false;
}

function saveChoice(change: Partial<SoundChoice>) {
  saveSoundChoice({ ...readSoundChoice(), ...change });
}

/** The sound of the video in `video`, which carries sound while `hasSound`. */
export function useSound(video: RefObject<HTMLVideoElement | null>, hasSound: boolean): Sound {
  const [muted, setMuted] = useState(true);
  const [volume, setVolumeShown] = useState(() => readSoundChoice().volume);
  const [waitingForGesture, setWaiting] = useState(false);
  const controlRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = video.current;
    if (!hasSound || !element) return undefined;
    // The element says what it plays, whoever changed it (unmuteSafely may mute it again).
    const sync = () => {
      setMuted(element.muted);
      setVolumeShown(element.volume);
    };
    element.addEventListener('volumechange', sync);
    const choice = readSoundChoice();
    element.volume = choice.volume;
    if (choice.muted === true) element.muted = true;
    else if (!(navigator.userActivation?.hasBeenActive && unmuteSafely(element))) {
      element.muted = true;
      setWaiting(true);
    }
    sync();
    return () => {
      element.removeEventListener('volumechange', sync);
      setWaiting(false);
    };
  }, [video, hasSound]);

  useEffect(() => {
    if (!waitingForGesture) return undefined;
    const onGesture = (event: Event) => {
      const element = video.current;
      if (!element || (event.target instanceof Node && controlRef.current?.contains(event.target))) return;
      // The mute shortcut is the person's own choice, which its handler makes.
      if (event instanceof KeyboardEvent && isMuteShortcut(event)) return;
      if (unmuteSafely(element)) setWaiting(false);
    };
    // Capture: the stage takes keys and the pointer for the application, and they still grant activation.
    for (const type of GESTURES) window.addEventListener(type, onGesture, true);
    return () => {
      for (const type of GESTURES) window.removeEventListener(type, onGesture, true);
    };
  }, [video, waitingForGesture]);

  const toggleMute = useCallback(() => {
    const element = video.current;
    if (!hasSound || !element) return;
    const mute = !element.muted;
    if (mute) element.muted = true;
    else if (!unmuteSafely(element)) return;
    setWaiting(false);
    saveChoice({ muted: mute });
  }, [video, hasSound]);

  const setVolume = useCallback(
    (next: number) => {
      const element = video.current;
      if (!hasSound || !element) return;
      element.volume = next;
      // Turning the sound up is asking to hear it.
      const unmuted = element.muted && next > 0 && unmuteSafely(element);
      if (unmuted) setWaiting(false);
      saveChoice({ volume: next, ...(unmuted ? { muted: false } : {}) });
    },
    [video, hasSound],
  );

  const state: SoundState = hasSound ? (muted ? 'muted' : 'on') : 'none';
  return { state, volume, waitingForGesture, toggleMute, setVolume, controlRef };
}
