/**
 * The program part of the display host, made in the host's scope: the sandbox the program (and its X server) run
 * in (program-sandbox.ts), its sound server (sound-server.ts), its folder of files (streamer/files/) and its life
 * (program-life.ts: started, restarted to open a file, ended). The sandbox comes first and alone, since the
 * display is started in it; the rest once the display is there.
 */
import type { AppMessage } from '../../protocol/data-channels.ts';
import type { StreamerOptions } from '../runtime/stream-options.ts';
import type { Scope } from '../runtime/scope.ts';
import type { AppEnd } from '../runtime/streaming-app.ts';
import type { openSessionFiles, SessionFiles } from '../files/session.ts';
import type { Display } from './display.ts';
import { openFile } from './file-opening.ts';
import { ProgramLife, sandboxLauncher } from './program-life.ts';
import type { prepareProgramSandbox, ProgramSandbox } from './program-sandbox.ts';
import type { FileOpening, SandboxSettings } from '../../protocol/launch.ts';
import { SoundServer } from './sound-server.ts';

/** The program a session streams, as the catalog's `launch.display` names it. */
export interface Program {
  command: string[];
  env: Record<string, string>;
  /** The display offers OpenGL (catalog `launch.display.opengl`, default true). */
  opengl?: boolean;
  /** The files it opens (catalog `launch.display.opens`), which `openFile` restarts it with. */
  opening?: FileOpening | null;
}

/** What a program is made with; tests replace some to see that a start that fails leaves nothing. */
export interface ProgramMakers {
  prepareSandbox: typeof prepareProgramSandbox;
  /** The session's folder (streamer/files/session.ts). */
  openFiles: typeof openSessionFiles;
}

/**
 * Makes the program's sandbox. The X server runs in it too, as the program's user and in its control group, so
 * that what the program makes it keep (pixmaps, its CPU) counts against the program's limits. A machine that
 * cannot make one runs neither.
 */
export function openSandbox(
  scope: Scope,
  makers: Pick<ProgramMakers, 'prepareSandbox'>,
  options: StreamerOptions,
  sandboxing: SandboxSettings,
): Promise<ProgramSandbox> {
  return scope.adopt(makers.prepareSandbox(options.sessionId, options.signalingPort, sandboxing), (made) =>
    made.close(),
  );
}

/** The running program, with its sound and its files. */
export class RunningProgram {
  private constructor(
    private readonly life: ProgramLife,
    private readonly program: Program,
    /** What it plays, for the viewers; null without sound. */
    readonly sound: SoundServer | null,
    readonly files: SessionFiles,
  ) {}

  /** Starts the program on `display` in `sandbox`, after its sound server (when `options.audio`) and its folder. */
  static async start(
    scope: Scope,
    makers: Pick<ProgramMakers, 'openFiles'>,
    options: StreamerOptions,
    program: Program,
    sandbox: ProgramSandbox,
    display: Display,
    log: (line: string) => void,
  ): Promise<RunningProgram> {
    // Started first, so that its start-up overlaps the stream server's and the encoder's. The program sees its
    // display and its own settings in its sandbox, nothing of this process's environment.
    const sound = options.audio
      ? scope.use(SoundServer.prepare(sandbox.uid, log), (made) => made?.close())
      : null;
    // The session's folder, the program's ~/Files, made before the program and released after it.
    const files = await scope.adopt(makers.openFiles(options.filesMb, sandbox.uid, log), (made) =>
      made.close(),
    );
    const { client } = display;
    const life = scope.use(
      new ProgramLife(
        sandboxLauncher(sandbox, display.address, sound, program.env, log, files.folder.dir),
        program.command,
        (listener) => {
          client.on('window', listener);
          return () => void client.off('window', listener);
        },
      ),
      (made) => made.stop(),
    );
    if (sound) scope.defer(sound.capture());
    return new RunningProgram(life, program, sound, files);
  }

  /** Resolves with how the program ended (the last one it ran: opening a file replaces it). */
  get ended(): Promise<AppEnd> {
    return this.life.ended;
  }

  /** Restarts the program with the file `name` of its folder; resolves with the answer for the viewer who asked. */
  open(name: unknown): Promise<AppMessage> {
    return openFile(name, {
      opening: this.program.opening ?? null,
      folder: this.files.folder.dir,
      program: this.program.command,
      life: this.life,
    });
  }
}
