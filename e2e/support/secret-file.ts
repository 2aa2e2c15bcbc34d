/** A viewer secret in a file only this user can read, as an application is given it (CONTRACT section 17). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const made: string[] = [];
// Removed when the test process ends, however it ends normally.
process.once('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** Writes `text` (the secret, base64url) to a new 0600 file and returns its path. */
export function secretFile(text: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'streamgate-secret-'));
  made.push(dir);
  const file = path.join(dir, 'secret');
  writeFileSync(file, text, { mode: 0o600 });
  return file;
}
