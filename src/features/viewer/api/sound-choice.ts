/**
 * A person's own choice about a session's sound, kept in this browser's localStorage: whether they muted it
 * and how loud they want it. It wins over the page's own unmuting, so that someone who muted stays muted
 * after a reload.
 */

/** localStorage key of the sound choice. */
export const SOUND_KEY = 'streamgate.sound';

/** What the person chose; `muted` is undefined until they chose either way. */
export interface SoundChoice {
  muted?: boolean;
  /** 0 to 1, as `HTMLMediaElement.volume`. */
  volume: number;
}

const DEFAULT_CHOICE: SoundChoice = { volume: 1 };

/** The saved choice, or the default (unmuted at full volume where the browser lets it) if none is readable. */
export function readSoundChoice(): SoundChoice {
  try {
    const parsed: unknown = JSON.parse(globalThis.localStorage?.getItem(SOUND_KEY) ?? 'null');
    if (parsed === null || typeof parsed !== 'object') return DEFAULT_CHOICE;
    const { muted, volume } = parsed as Record<string, unknown>;
    return {
      ...(typeof muted === 'boolean' ? { muted } : {}),
      volume: typeof volume === 'number' && volume >= 0 && volume <= 1 ? volume : DEFAULT_CHOICE.volume,
    };
  } catch {
    return DEFAULT_CHOICE;
  }
}

/** Saves the choice for this browser's next sessions. */
export function saveSoundChoice(choice: SoundChoice): void {
  try {
    globalThis.localStorage?.setItem(SOUND_KEY, JSON.stringify(choice));
  } catch {
    // A full or locked storage forgets the choice after this page, and nothing else.
  }
}
