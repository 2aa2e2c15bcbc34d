/** A viewer secret in a file only this user can read, as an application is given it (CONTRACT section 17). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Writes `text` (the secret, base64url) to a new 0600 file and returns its path. */
export function secretFile(text: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'streamgate-secret-')), 'secret');
  writeFileSync(file, text, { mode: 0o600 });
  return file;
}
