/** Display-host parts for process tests: the real ones, with each program the host spawns shown to the test. */
import type { ChildProcess } from 'node:child_process';
import { DISPLAY_PARTS, type DisplayParts } from '../streamer/display/display-host.ts';

/** The real parts, calling `spawned` with each program's process as the host starts it in its sandbox. */
export function partsSeeingPrograms(
  spawned: (child: ChildProcess) => void,
  parts: DisplayParts = DISPLAY_PARTS,
): DisplayParts {
  return {
    ...parts,
    async prepareSandbox(...args) {
      const sandbox = await parts.prepareSandbox(...args);
      return {
        ...sandbox,
        spawn(...spawnArgs) {
          const child = sandbox.spawn(...spawnArgs);
          spawned(child);
          return child;
        },
      };
    },
  };
}
