/**
 * Modes of what the service writes under its data directory. Session state holds the arguments that
 * users passed and application logs hold whatever the applications print: only the service's user
 * may read them.
 */
import { chmod, mkdir } from 'node:fs/promises';

/** The data directory and its logs directory. */
export const PRIVATE_DIR_MODE = 0o700;

/** Session state and its copy, the service lock and application logs. */
export const PRIVATE_FILE_MODE = 0o600;

/** Makes the data directory, or closes an existing one (mkdir keeps an existing directory's mode) to all but the service. */
export async function openPrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  await chmod(dir, PRIVATE_DIR_MODE);
}
