import { describe, expect, it } from 'vitest';
import type { FilesListing } from '../../../../protocol/files';
import { uploadProblem } from './upload-problem';

const listing: FilesListing = {
  limit_bytes: 1000,
  used_bytes: 700,
  items: [{ name: 'big.bin', size: 600, modified: '2026-03-12T14:05:00Z', kind: 'file' }],
};

describe('uploadProblem', () => {
  it('refuses a name the folder cannot hold', () => {
    expect(uploadProblem({ name: 'a/b', size: 1 }, { listing, queued: 0 })).toMatch(/cannot hold “\/”/);
  });

  it('leaves the room to the service when the listing is unknown', () => {
    expect(uploadProblem({ name: 'a', size: 10 ** 12 }, { listing: undefined, queued: 0 })).toBeNull();
  });

  it('counts what is left after the uploads on their way, and frees the bytes of a file replaced', () => {
    expect(uploadProblem({ name: 'a', size: 300 }, { listing, queued: 0 })).toBeNull();
    expect(uploadProblem({ name: 'a', size: 300 }, { listing, queued: 1 })).toBe(
      'This file (300 B) does not fit: 299 B of the folder’s 1000 B are left. Delete files to make room, then try again.',
    );
    expect(uploadProblem({ name: 'big.bin', size: 900 }, { listing, queued: 0 })).toBeNull();
    expect(uploadProblem({ name: 'a', size: 1001 }, { listing, queued: 0 })).toBe(
      'This file (1001 B) is larger than the session’s whole folder (1000 B): it cannot go in.',
    );
  });
});
