/**
 * A display session's sound (CONTRACT §19): a PulseAudio server of its own, run in the program's sandbox as the
 * session's user, so that it dies with the sandbox (its pid namespace and control group) and reaches nothing the
 * program cannot. The program reaches it as any PulseAudio client does (`PULSE_SERVER`); what it plays goes to a
 * null sink, whose monitor `parec`, outside the sandbox, reads as raw PCM for the session's AudioStream.
 *
 * The server's socket lies in a folder the display host makes for the session (owned by the session's user,
 * mode 0700) and binds into the sandbox. The sandboxed command is a small shell that starts the server
 * (`--daemonize=yes` returns once it is ready or has failed), leaves its verdict in that folder, and then execs
 * the program: the program's exit status and error output mean what they meant without sound. A server that
 * cannot start costs the session its sound, never its picture.
 */
import type { ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  constants,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  watch,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SANDBOX_HOME, SANDBOX_SOUND_DIR } from '../../sandbox/bwrap.ts';
import { AudioStream, CHANNELS, PcmFrames, SAMPLE_RATE } from '../media/audio.ts';
import { spawnIsolated } from '../runtime/spawn-isolated.ts';
import { SOUND_DIR_PREFIX } from '../../sandbox/leftovers.ts';

/** The null sink the program plays into; the host reads its monitor. */
export const SINK = 'streamgate';
/** How long the server has to start before the session goes on without sound. */
export const SOUND_START_MS = 10_000;
/** A capture that ended while the session runs starts again after this long, doubled while it keeps failing. */
const RESTART_MS = 500;
const RESTART_MAX_MS = 8_000;

/** The server's flags: no configuration read, nothing shared across the sandbox's wall, no exit when idle. */
export function pulseaudioArgs(dir = SANDBOX_SOUND_DIR): string[] {
  return [
    '--daemonize=yes',
    '-n',
    '--system=no',
    '--use-pid-file=no',
    '--exit-idle-time=-1',
    '--disallow-exit',
    '--disallow-module-loading',
    '--disable-shm=yes',
    '--realtime=no',
    '--high-priority=no',
    `--log-target=file:${dir}/log`,
    '-L',
    `module-null-sink sink_name=${SINK} rate=${SAMPLE_RATE} channels=${CHANNELS} format=s16le`,
    '-L',
    `module-native-protocol-unix socket=${dir}/native auth-anonymous=1`,
  ];
}

/** `value` as one word of a POSIX shell. */
function quote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * The sandboxed command that starts the session's server and then execs `command`, and what the program is told.
 * The server gets none of the program's environment: not its display (no X11 modules here, and libdbus would start
 * a bus through it) nor a PATH or PULSE_* setting that would keep it from starting. Its own output goes to its log, and its verdict (its exit status, 0 once it is ready) is renamed into
 * place whole, so the host never reads half of it.
 */
export function wrapWithSound(
  command: readonly string[],
  dir = SANDBOX_SOUND_DIR,
): { command: string[]; env: Record<string, string> } {
  const d = quote(dir);
  const script =
    `env -i HOME=${SANDBOX_HOME} XDG_RUNTIME_DIR=${path.dirname(dir)} LANG=C.UTF-8 /usr/bin/pulseaudio ` +
    `${pulseaudioArgs(dir).map(quote).join(' ')} </dev/null >>${d}/log 2>&1; ` +
    `echo $? >${d}/.status && mv ${d}/.status ${d}/status; exec "$@"`;
  return {
    command: ['/bin/sh', '-c', script, 'sh', ...command],
    env: { PULSE_SERVER: `unix:${dir}/native` },
  };
}

/**
 * `parec`'s arguments: the sink's monitor as raw 48 kHz stereo s16le. PulseAudio hands a recording its data in
 * pieces of about a sixth of the latency asked for: at 10 ms, 600 writes of 320 bytes a second, each a wake-up and
 * a read of the display host's. At 30 ms, 200 a second: the host of a silent session nobody watches went from
 * 0.038-0.044 core to 0.017-0.028 (with PcmFrames cutting frames in place; `npm run bench -- sound-idle`), and the
 * display host's key to sound did not move (48.6-57.7 ms against 57.5, `npx tsx bench/sound.ts --keys-only`).
 */
export function parecArgs(): string[] {
  return [
    '--raw',
    '--format=s16le',
    `--rate=${SAMPLE_RATE}`,
    `--channels=${CHANNELS}`,
    '--latency-msec=30',
    '-d',
    `${SINK}.monitor`,
  ];
}

/**
 * The environment of `parec`: the session's server and nothing the session's program could have written (a
 * client.conf in a home it shares could name a binary to autospawn).
 */
export function parecEnv(hostDir: string): Record<string, string> {
  return {
    PULSE_SERVER: `unix:${path.join(hostDir, 'native')}`,
    PULSE_CLIENTCONFIG: '/dev/null',
    HOME: '/nonexistent',
    PATH: '/usr/bin:/bin',
    LANG: 'C.UTF-8',
  };
}

/**
 * At most `max` bytes of `file`, or nothing: the folder is the program's too, so the file may be a link, a pipe or
 * anything else it put there, and none of that may follow a link or stop the host.
 */
function readStart(file: string, max = 2_000): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const buffer = Buffer.alloc(max);
    return buffer.subarray(0, readSync(fd, buffer, 0, max, null)).toString();
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * A session's sound: the folder of its server, the program's command around it, the capture of what it plays and
 * the AudioStream that capture feeds.
 */
export class SoundServer {
  /** What the server plays, for the stream server to send its viewers. */
  readonly stream = new AudioStream();
  private parec: ChildProcess | null = null;
  private closed = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private watcher: ReturnType<typeof watch> | null = null;
  private startTimer: NodeJS.Timeout | undefined;

  private constructor(
    /** The folder on the host, bound into the sandbox at SANDBOX_SOUND_DIR. */
    readonly hostDir: string,
    private readonly uid: number,
    private readonly log: (line: string) => void,
    private readonly parecPath: string,
  ) {}

  /**
   * Makes the session's folder, owned by `uid` (the session's user) and closed to everyone else; null, after a
   * line saying why, where it cannot be made (sound is not worth a failed session).
   */
  static prepare(uid: number, log: (line: string) => void, parecPath = 'parec'): SoundServer | null {
    try {
      return SoundServer.make(uid, log, parecPath);
    } catch (error) {
      log(`no sound: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    }
  }

  private static make(uid: number, log: (line: string) => void, parecPath = 'parec'): SoundServer {
    const dir = mkdtempSync(path.join(tmpdir(), SOUND_DIR_PREFIX));
    try {
      chownSync(dir, uid, uid);
      chmodSync(dir, 0o700);
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
    return new SoundServer(dir, uid, log, parecPath);
  }

  /** `command` started after the session's server, and its environment with the server's address. */
  wrap(command: readonly string[], env: Record<string, string>) {
    const wrapped = wrapWithSound(command);
    return { command: wrapped.command, env: { ...env, ...wrapped.env } };
  }

  /**
   * Feeds `sound` from the sink's monitor once the server in the sandbox says it is ready, for as long as this
   * is open; a server that failed or never answered is logged once, and the session goes on without sound.
   */
  capture(): () => Promise<void> {
    const sound = this.stream;
    const status = path.join(this.hostDir, 'status');
    const verdict = () => {
      const text = readStart(status, 16).trim();
      if (text === '') return false;
      this.stopWaiting();
      if (text === '0') this.startParec(sound);
      else this.unavailable(`the sound server did not start (${this.lastWords() || `status ${text}`})`);
      return true;
    };
    this.watcher = watch(this.hostDir, (_event, name) => {
      if (name === 'status') verdict();
    });
    this.watcher.on('error', () => undefined);
    if (!verdict()) {
      this.startTimer = setTimeout(() => {
        this.stopWaiting();
        this.unavailable(`the sound server did not start within ${SOUND_START_MS / 1000} s`);
      }, SOUND_START_MS);
    }
    return () => this.stopCapture();
  }

  /** There will be no sound: said once, and later viewers get no audio track (AudioStream.available). */
  private unavailable(why: string): void {
    this.stream.available = false;
    this.log(`no sound: ${why}`);
  }

  /** Stops the capture and removes the folder (the server itself ends with its sandbox). */
  async close(): Promise<void> {
    await this.stopCapture();
    this.stream.close();
    rmSync(this.hostDir, { recursive: true, force: true });
  }

  /** Stops the capture for good: a capture stopped before the program is not started again. */
  private async stopCapture(): Promise<void> {
    this.closed = true;
    this.stopWaiting();
    clearTimeout(this.restartTimer);
    const parec = this.parec;
    if (parec?.pid !== undefined && parec.exitCode === null && parec.signalCode === null) {
      const exited = new Promise((resolve) => parec.once('exit', resolve));
      parec.kill('SIGKILL');
      await exited;
    }
  }

  private stopWaiting(): void {
    clearTimeout(this.startTimer);
    this.watcher?.close();
    this.watcher = null;
  }

  /** The server's last error line, from its log (its start, where a failed start says why). */
  private lastWords(): string {
    const lines = readStart(path.join(this.hostDir, 'log'), 4_000).trim().split('\n');
    return (lines.findLast((line) => line.startsWith('E: ')) ?? lines.at(-1) ?? '').slice(0, 300);
  }

  /** Runs `parec` into `sound`; one that ends while this is open starts again, later each time it fails at once. */
  private startParec(sound: AudioStream, failures = 0): void {
    if (this.closed) return;
    const frames = new PcmFrames((frame) => sound.push(frame));
    const child = spawnIsolated(this.parecPath, parecArgs(), {
      stdio: ['ignore', 'pipe', 'pipe'],
      uid: this.uid,
      gid: this.uid,
      env: parecEnv(this.hostDir),
    });
    this.parec = child;
    let said = '';
    let streamed = false;
    child.stdout?.on('data', (chunk: Buffer) => {
      streamed = true;
      frames.write(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => (said = (said + chunk.toString()).slice(-300)));
    let ended = false;
    const end = (how: string) => {
      if (ended || this.closed) return;
      ended = true;
      this.parec = null;
      const run = streamed ? 0 : failures;
      // Logged once per run of failures, not at every attempt while the server is gone.
      if (run === 0) {
        // Without a cookie of its own (the server asks for none) parec says so at every start: not news.
        const last =
          said
            .trim()
            .split('\n')
            .findLast((line) => !/cookie/i.test(line)) ?? '';
        this.log(`the sound capture ended (${how}${last ? `: ${last}` : ''}); restarting it`);
      }
      const delay = Math.min(RESTART_MS * 2 ** run, RESTART_MAX_MS);
      this.restartTimer = setTimeout(() => this.startParec(sound, run + 1), delay);
    };
    child.once('error', (error) => end(error.message));
    child.once('close', (code, signal) => end(signal ?? `code ${code}`));
  }
}
