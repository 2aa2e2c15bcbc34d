/**
 * A person's choice of the picture's size, kept in this browser's localStorage: "Fit the window" (the stream
 * follows the viewer's size, up to the profile's maximum) or a cap, for a slow or metered link. A smaller picture
 * costs less: the service's encoder sets its bitrate by the picture's area (about 1.2 Mbit/s at 720p30, 0.3 at 360p).
 */

/** localStorage key of the picture choice. */
export const PICTURE_KEY = 'streamgate.picture';

/** One choice: its name in the menu, and the largest stream it asks for (none: the window's size). */
export interface PictureChoice {
  id: 'fit' | '1080p' | '720p' | '540p' | '360p';
  label: string;
  max?: { width: number; height: number };
}

export const PICTURE_CHOICES: readonly PictureChoice[] = [
  { id: 'fit', label: 'Fit the window' },
  { id: '1080p', label: 'Up to 1080p', max: { width: 1920, height: 1080 } },
  { id: '720p', label: 'Up to 720p', max: { width: 1280, height: 720 } },
  { id: '540p', label: 'Up to 540p', max: { width: 960, height: 540 } },
  { id: '360p', label: 'Up to 360p (saves data)', max: { width: 640, height: 360 } },
];

const FIT = PICTURE_CHOICES[0]!;

/** The saved choice, or "Fit the window" where none is saved or readable. */
export function readPictureChoice(): PictureChoice {
  try {
    const id = globalThis.localStorage?.getItem(PICTURE_KEY);
    return PICTURE_CHOICES.find((choice) => choice.id === id) ?? FIT;
  } catch {
    return FIT;
  }
}

/** Saves the choice for this browser's next sessions. */
export function savePictureChoice(choice: PictureChoice): void {
  try {
    globalThis.localStorage?.setItem(PICTURE_KEY, choice.id);
  } catch {
    // A full or locked storage forgets the choice after this page, and nothing else.
  }
}
