/** A viewer secret in a file only this user can read, as an application is given it (CONTRACT section 17). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Writes `text` (the secret, base64url) to a new 0600 file and returns its path. The file is gone after this turn
 * of the event loop, as a pipe would be once read: read it at once (parseArgs does).
 */
export function secretFile(text: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'streamgate-secret-'));
  const file = path.join(dir, 'secret');
  writeFileSync(file, text, { mode: 0o600 });
  setImmediate(() => rmSync(dir, { recursive: true, force: true }));
  return file;
}
