import { afterEach, describe, expect, it } from 'vitest';
import { PICTURE_KEY, readPictureChoice, savePictureChoice, PICTURE_CHOICES } from './picture-choice';

describe('picture choice', () => {
  afterEach(() => localStorage.clear());

  it('fits the window until a person chose otherwise, and keeps what they chose', () => {
    expect(readPictureChoice().id).toBe('fit');
    savePictureChoice(PICTURE_CHOICES.find((c) => c.id === '360p')!);
    expect(readPictureChoice()).toMatchObject({ id: '360p', max: { width: 640, height: 360 } });
  });

  it('fits the window where the saved choice is one it does not know', () => {
    localStorage.setItem(PICTURE_KEY, '8k');
    expect(readPictureChoice().id).toBe('fit');
  });
});
