import { describe, expect, it } from 'vitest';
import { attachment, isFilesPath } from './routes.ts';

describe('attachment', () => {
  it('names a plain file as it is, both ways', () => {
    expect(attachment('notes.txt')).toBe(`attachment; filename="notes.txt"; filename*=UTF-8''notes.txt`);
  });

  it('gives old clients a printable ASCII name and the exact one in UTF-8 (RFC 6266, RFC 8187)', () => {
    expect(attachment('résumé (1).pdf')).toBe(
      `attachment; filename="r_sum_ (1).pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%281%29.pdf`,
    );
  });

  it('keeps quotes, backslashes and percent signs out of the quoted name', () => {
    expect(attachment(`a"b\\c%d'e*`)).toBe(
      `attachment; filename="a_b_c_d'e*"; filename*=UTF-8''a%22b%5Cc%25d%27e%2A`,
    );
  });
});

describe('isFilesPath', () => {
  it('takes /files and what is under it, as sent, and nothing else', () => {
    expect(isFilesPath('/files')).toBe(true);
    expect(isFilesPath('/files?format=zip')).toBe(true);
    expect(isFilesPath('/files/%2E%2E')).toBe(true);
    expect(isFilesPath('/filesystem')).toBe(false);
    expect(isFilesPath('/whep')).toBe(false);
    expect(isFilesPath(undefined)).toBe(false);
  });
});
