/**
 * The video encoder: Debian's ffmpeg reading raw frames on its stdin and sending RTP to a loopback UDP socket
 * of ours; what it is told to do is in ffmpeg-args.ts. Frames come on stdin so that ffmpeg ends on EOF when this
 * process dies in any way, SIGKILL included; on a clean stop it is also killed outright. While nobody watches, the
 * encoder may rest (`rest`): ffmpeg is stopped, its socket, size and frame buffers kept, until `wake` starts it again.
 */
import type { ChildProcess } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { ffmpegArgs, type EncoderSize, type PixelFormat, type VideoEncoderName } from './ffmpeg-args.ts';
import { spawnIsolated } from '../runtime/spawn-isolated.ts';

export interface EncoderOptions {
  /** ffmpeg executable; `ffmpeg` from PATH unless STREAMGATE_FFMPEG says otherwise. */
  ffmpegPath?: string;
  /** Each RTP datagram from the encoder. */
  onPacket: (packet: Buffer) => void;
  /** Called with a short reason when ffmpeg exits without being asked to. */
  onUnexpectedExit?: (reason: string) => void;
  /** How the frames given to `write()` lay out their pixels: RGBA (the sample scene) or BGRX (an X display). */
  pixelFormat?: PixelFormat;
  /** The ffmpeg encoder (`chooseEncoder`); libvpx (VP8) unless told. */
  encoder?: VideoEncoderName;
}

/** One ffmpeg at a time, restarted when it dies unexpectedly or the size changes. */
export class Encoder {
  private socket: Socket | null = null;
  private child: ChildProcess | null = null;
  private size: EncoderSize | null = null;
  private stopped = false;
  private resting = false;
  private restarts = 0;
  private restartTimer: NodeJS.Timeout | null = null;
  /** Frames dropped because ffmpeg had not taken the previous ones yet. */
  dropped = 0;
  private pool: Buffer[] = [];
  private readonly busy = new Set<Buffer>();

  constructor(private readonly options: EncoderOptions) {}

  /** Binds the RTP socket and starts ffmpeg at `size`. */
  async start(size: EncoderSize): Promise<void> {
    const socket = createSocket('udp4');
    socket.on('message', (msg) => this.options.onPacket(msg));
    socket.on('error', () => undefined); // a stray datagram error must not end the application
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    this.socket = socket;
    this.size = size;
    this.spawn();
  }

  /** The pid of the running ffmpeg, for tests and benchmarks. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Restarts ffmpeg at a new size (at rest, the size is the one it wakes at). */
  resize(size: EncoderSize): void {
    this.size = size;
    if (this.resting) return;
    this.kill();
    this.spawn();
  }

  /** Whether ffmpeg is stopped until `wake`. */
  get isResting(): boolean {
    return this.resting;
  }

  /** Stops ffmpeg until `wake`: its memory and CPU are given back; frames are refused meanwhile. */
  rest(): void {
    if (this.stopped || this.resting) return;
    this.resting = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.kill();
  }

  /** Starts ffmpeg again after `rest`; its first frame is a keyframe. */
  wake(): void {
    if (!this.resting) return;
    this.resting = false;
    this.restarts = 0;
    this.spawn();
  }

  /**
   * A frame buffer that no pending write still holds, or null when ffmpeg is behind (the caller then
   * skips the frame). Frames are far larger than a pipe, so each write stays queued for a while.
   */
  acquire(): Buffer | null {
    if (this.resting) return null;
    const stdin = this.child?.stdin;
    // Not writableNeedDrain: one frame is far over the stream's high-water mark, so it is always set.
    if (!this.size || !stdin || !stdin.writable) {
      this.dropped++;
      return null;
    }
    const bytes = this.size.width * this.size.height * 4;
    const free = this.pool.find((b) => b.length === bytes && !this.busy.has(b));
    if (free) return free;
    this.pool = this.pool.filter((b) => b.length === bytes);
    // Two frames at most: one in the pipe and one waiting. More would only add latency.
    if (this.pool.length >= 2) {
      this.dropped++;
      return null;
    }
    const buffer = Buffer.alloc(bytes);
    this.pool.push(buffer);
    return buffer;
  }

  /** Queues one frame from `acquire()`, filled with exactly width*height*4 bytes of pixels. */
  write(frame: Buffer): void {
    const stdin = this.child?.stdin;
    if (!stdin || !stdin.writable) return;
    this.busy.add(frame);
    stdin.write(frame, () => this.busy.delete(frame));
  }

  /** Stops ffmpeg for good and closes the socket. */
  stop(): void {
    this.stopped = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.kill();
    this.socket?.close();
    this.socket = null;
  }

  private spawn(): void {
    if (this.stopped || this.resting || !this.size || !this.socket) return;
    const port = this.socket.address().port;
    const ffmpeg = this.options.ffmpegPath ?? process.env.STREAMGATE_FFMPEG ?? 'ffmpeg';
    const args = ffmpegArgs(this.size, port, this.options.pixelFormat, this.options.encoder);
    const child = spawnIsolated(ffmpeg, args, { stdio: ['pipe', 'ignore', 'pipe'] });
    this.child = child;
    // Writes queued on a dead ffmpeg's stdin may never call back; its buffers are free again.
    this.busy.clear();
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    // EPIPE when ffmpeg dies mid-write: the exit handler below restarts it.
    child.stdin?.on('error', () => undefined);
    child.on('error', (err) => {
      stderr += err.message;
    });
    const startedAt = Date.now();
    child.on('exit', (code, signal) => {
      if (this.child !== child) return; // replaced on purpose (resize or stop)
      this.child = null;
      if (this.stopped) return;
      const reason = `ffmpeg exited (${signal ?? code}): ${stderr.trim().split('\n').pop() ?? ''}`;
      this.options.onUnexpectedExit?.(reason);
      // Back off when it dies at once over and over (e.g. a missing codec), but recover fast from a one-off.
      this.restarts = Date.now() - startedAt < 2000 ? this.restarts + 1 : 0;
      const delay = Math.min(5000, 100 * 2 ** Math.min(this.restarts, 6));
      this.restartTimer = setTimeout(() => this.spawn(), delay);
    });
  }

  private kill(): void {
    const child = this.child;
    this.child = null;
    this.busy.clear();
    if (!child) return;
    child.stdin?.end();
    child.kill('SIGKILL');
  }
}
