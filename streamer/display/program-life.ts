/**
 * The life of a display session's program: started once, replaced by another (a file opened, file-opening.ts),
 * ended. One program at a time, and the session's program is whichever runs last: its own exit ends the session,
 * while the exit of a program ended to make way for another ends nothing. The X server, the capture, the encoder,
 * the sound and the viewers belong to the display host and never notice a replacement but by the picture.
 *
 * The phases, and the only moves between them:
 *
 *   running ──replace──▶ replacing ──new program spawned──▶ running
 *      │                     │
 *      ├──its exit──▶ ended ◀┘ (the new program could not be spawned)
 *      └──stop──▶ stopped ◀── (from any phase: the host closes)
 */
import type { ChildProcess } from 'node:child_process';
import { programEnding, Tail } from './program-ending.ts';
import type { ProgramSandbox } from './program-sandbox.ts';
import type { SoundServer } from './sound-server.ts';
import { stopChild } from '../runtime/lifecycle.ts';

/** How a program ended: 0 when it exited 0, else 1, and why in words. */
export interface Ending {
  code: number;
  reason: string;
}

/** One program started: its process and the promise of its end. */
export interface Launched {
  child: ChildProcess;
  ending: Promise<Ending>;
}

/** Starts `command` where the session's programs run (`sandboxLauncher`); throws if it cannot even be spawned. */
export type Launch = (command: readonly string[]) => Launched;

/** Calls `listener` each time a top-level window is mapped on the display; returns what stops that. */
export type WindowWatch = (listener: () => void) => () => void;

/**
 * What `replace` came to: the new program runs; nothing changed (the old one still runs, or the session is
 * ending); or the old program was ended and the new one did not start, which ends the session.
 */
export type Replacement =
  { outcome: 'started' } | { outcome: 'refused'; reason: string } | { outcome: 'failed'; reason: string };

/** A program asked to stop has this long before it is killed. */
export const PROGRAM_GRACE_MS = 2_000;
/** A replacement that maps no window but still runs after this long has started all the same. */
export const START_WAIT_MS = 5_000;

type Phase =
  /** The session's program runs: its exit ends the session. */
  | { name: 'running'; program: Launched }
  /** The program is being ended to make way for another: its exit ends nothing. */
  | { name: 'replacing'; program: Launched; stopped: Promise<void> }
  /** The session's program ended by itself (or its replacement could not start): the session ends. */
  | { name: 'ended' }
  /** The host stops: nothing starts any more. */
  | { name: 'stopped' };

const MOVES: Record<Phase['name'], readonly Phase['name'][]> = {
  running: ['replacing', 'ended', 'stopped'],
  replacing: ['running', 'ended', 'stopped'],
  ended: ['stopped'],
  stopped: [],
};

/** Stops `child` (SIGTERM, then SIGKILL after the program's grace) and waits until it has exited. */
export const stopProgram = (child: ChildProcess, graceMs = PROGRAM_GRACE_MS) => stopChild(child, graceMs);

export class ProgramLife {
  /** Resolves once the session's program has ended by itself: the session ends with it. */
  readonly ended: Promise<Ending>;
  private endWith: (ending: Ending) => void = () => undefined;
  private phase: Phase;
  /** Replacements, one after the other: never two programs at once. */
  private queue: Promise<unknown> = Promise.resolve();

  /** Starts `command` with `launch`; `windows` tells when a replacement is up. */
  constructor(
    private readonly launch: Launch,
    command: readonly string[],
    private readonly windows: WindowWatch,
    private readonly startWaitMs = START_WAIT_MS,
  ) {
    this.ended = new Promise((resolve) => (this.endWith = resolve));
    this.phase = { name: 'running', program: this.run(command) };
  }

  /** The running program's process id (the sandbox's outermost process), if one runs. */
  get pid(): number | undefined {
    return this.phase.name === 'running' ? this.phase.program.child.pid : undefined;
  }

  /**
   * Ends the running program as `stop` would and starts `command` in its place, after any replacement asked for
   * before. `check`, in this replacement's turn and before anything changes, may refuse it with a sentence (a
   * file removed while an earlier replacement ran). Resolves once the new program has mapped a window (or still
   * runs after START_WAIT_MS), or with why it did not start: a replacement that cannot start ends the session, as
   * the program's own exit would.
   */
  replace(command: readonly string[], check: () => string | null = () => null): Promise<Replacement> {
    const turn = this.queue.then(() => this.replaceNow(command, check));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /** Stops the program and anything still to start; idempotent. */
  async stop(): Promise<void> {
    const phase = this.phase;
    if (phase.name === 'stopped') return;
    this.to({ name: 'stopped' });
    if (phase.name === 'running') await stopProgram(phase.program.child);
    if (phase.name === 'replacing') await phase.stopped;
  }

  private async replaceNow(command: readonly string[], check: () => string | null): Promise<Replacement> {
    const ending = { outcome: 'refused', reason: 'The session is ending.' } as const;
    if (this.phase.name !== 'running') return ending;
    const refusal = check();
    if (refusal) return { outcome: 'refused', reason: refusal };
    const stopped = stopProgram(this.phase.program.child);
    this.to({ name: 'replacing', program: this.phase.program, stopped });
    await stopped;
    // `stop` may have come meanwhile: the phase is what it says now, not what it was before the await.
    if ((this.phase as Phase).name !== 'replacing') return ending;
    let program: Launched;
    try {
      program = this.run(command);
    } catch (error) {
      const reason = `${command[0]} could not be started: ${error instanceof Error ? error.message : String(error)}`;
      this.to({ name: 'ended' });
      this.endWith({ code: 1, reason });
      return { outcome: 'failed', reason };
    }
    this.to({ name: 'running', program });
    return this.untilStarted(program);
  }

  /** Starts `command`; its exit ends the session if it is still the session's program then. */
  private run(command: readonly string[]): Launched {
    const program = this.launch(command);
    void program.ending.then((ending) => {
      if (this.phase.name !== 'running' || this.phase.program !== program) return;
      this.to({ name: 'ended' });
      this.endWith(ending);
    });
    return program;
  }

  private untilStarted(program: Launched): Promise<Replacement> {
    return new Promise((resolve) => {
      let settled = false;
      const settle = (result: Replacement) => {
        if (settled) return;
        settled = true;
        unwatch();
        clearTimeout(timer);
        resolve(result);
      };
      const unwatch = this.windows(() => settle({ outcome: 'started' }));
      const timer = setTimeout(() => settle({ outcome: 'started' }), this.startWaitMs);
      void program.ending.then((ended) => settle({ outcome: 'failed', reason: ended.reason }));
    });
  }

  private to(next: Phase): void {
    if (!MOVES[this.phase.name].includes(next.name)) {
      throw new Error(`A program's life cannot go from ${this.phase.name} to ${next.name}.`);
    }
    this.phase = next;
  }
}

/**
 * Starts programs in the session's sandbox, on its display, with its sound server in front (sound-server.ts: a
 * replacement starts one of its own in the same folder, whose sound the capture picks up again). Each program's
 * error output goes to this process's and its last lines into the reason it ended.
 */
export function sandboxLauncher(
  sandbox: Pick<ProgramSandbox, 'spawn' | 'ending'>,
  display: { name: string; socket: string; authFile: string },
  sound: Pick<SoundServer, 'wrap' | 'hostDir'> | null,
  env: Record<string, string>,
  log: (line: string) => void,
  filesDir?: string,
): Launch {
  return (command) => {
    const [file = ''] = command;
    const tail = new Tail();
    const launched = sound?.wrap(command, env) ?? { command: [...command], env };
    const child = sandbox.spawn(launched.command, launched.env, display, sound?.hostDir, filesDir);
    const ending = programEnding(child, file, sandbox, tail);
    child.stderr?.on('data', (chunk: Buffer) => {
      tail.add(chunk);
      process.stderr.write(chunk);
    });
    log(`started ${command.join(' ')} (pid ${child.pid ?? '?'}) on ${display.name}`);
    return { child, ending };
  };
}
