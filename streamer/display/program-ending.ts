/** Why a display host's program ended, in words the service quotes as the session's reason. */
import type { ChildProcess } from 'node:child_process';
import type { ProgramSandbox } from './program-sandbox.ts';

/** The last lines of a program's error output, kept for the reason its session failed. */
export class Tail {
  private text = '';
  add(chunk: Buffer): void {
    this.text = (this.text + chunk.toString()).slice(-4000);
  }
  lines(n: number): string {
    return this.text.trim().split('\n').slice(-n).join(' | ');
  }
}

/** Resolves once `child` (the program `file`, in `sandbox`) has ended: 0 when it exited 0, else 1 and why. */
export function programEnding(
  child: ChildProcess,
  file: string,
  sandbox: Pick<ProgramSandbox, 'ending'>,
  tail: Tail,
): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => {
    child.once('error', (error) =>
      resolve({ code: 1, reason: `${file} could not be started: ${error.message}` }),
    );
    child.once('exit', (code, signal) => {
      const last = tail.lines(3);
      if (code === 0) return resolve({ code: 0, reason: `${file} exited` });
      const ending = sandbox.ending(code, signal);
      if (ending.outOfMemory) return resolve({ code: 1, reason: `${file} ${ending.outOfMemory}` });
      const how = ending.signal ? `was stopped by ${ending.signal}` : `exited with code ${code}`;
      resolve({ code: 1, reason: `${file} ${how}${last ? `; its last output: ${last}` : ''}` });
    });
  });
}
