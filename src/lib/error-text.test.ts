import { describe, expect, it } from 'vitest';
import { ApiError } from './api-client';
import { describeError } from './error-text';

describe('describeError', () => {
  it('says once when to try again after a refusal that says so itself', () => {
    const text = describeError(
      new ApiError(429, 'You started too many sessions in a short time; try again in 28 s.', 28),
    );
    expect(text).toBe('You started too many sessions in a short time; try again in 28 s.');
  });

  it('adds when to try again to a refusal that does not say it (another deployment)', () => {
    expect(describeError(new ApiError(429, 'Too many requests.', 12))).toBe(
      'Too many requests. Try again in 12 s.',
    );
    expect(describeError(new ApiError(503, 'Busy.'))).toBe('Busy. Try again in a moment.');
    // A vaguer time in the detail still gets the exact wait.
    expect(describeError(new ApiError(503, 'The queue is full; try again in a little while.', 15))).toBe(
      'The queue is full; try again in a little while. Try again in 15 s.',
    );
    expect(describeError(new ApiError(503, 'Cannot save; try again later.'))).toBe(
      'Cannot save; try again later.',
    );
  });

  it('says that a session failed once, whether or not the service said it already', () => {
    expect(describeError(new ApiError(410, 'The session failed: Broken 1.0.0 exited with code 3.'))).toBe(
      'The session failed: Broken 1.0.0 exited with code 3.',
    );
    expect(describeError(new ApiError(410, 'Broken 1.0.0 exited with code 3.'))).toBe(
      'The session failed: Broken 1.0.0 exited with code 3.',
    );
  });
});
