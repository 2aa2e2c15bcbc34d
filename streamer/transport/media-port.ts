/**
 * Keeps the application alive when its media port is taken. libdatachannel binds the one shared media
 * port when the first viewer's PeerConnection gathers, and if that bind fails it throws on its own
 * thread, which aborts the whole process. So before the first viewer (none holding the port), the port
 * is bound once here to see that it is free; a refusal becomes a 503 for that viewer, not a dead session.
 */
import { createSocket } from 'node:dgram';
import { setTimeout as sleep } from 'node:timers/promises';

/** The media port is held by another program; the viewer is refused, the application goes on. */
export class MediaPortBusyError extends Error {
  readonly status = 503;
  constructor(port: number) {
    super(`The media port ${port} is held by another program; try again in a moment.`);
  }
}

/** Whether a UDP socket can be bound on `host:port` right now. */
export function canBindUdp(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    socket.once('error', () => {
      socket.close();
      resolve(false);
    });
    socket.bind(port, host, () => socket.close(() => resolve(true)));
  });
}

/** Counts the PeerConnections on the port; the first of a run checks the port before it is made. */
export class MediaPortGuard {
  private holders = 0;
  private checking: Promise<void> | null = null;

  constructor(
    private readonly host: string,
    private readonly port: number,
    /** How long a port still held is asked again: a PeerConnection just closed may free it late. */
    private readonly waitMs = 1_000,
  ) {}

  /** Resolves when a PeerConnection may be made on the port; rejects with MediaPortBusyError. */
  async acquire(): Promise<void> {
    if (this.holders === 0 && !this.checking) {
      this.checking = this.check().finally(() => (this.checking = null));
    }
    const check = this.checking;
    this.holders++;
    if (!check) return;
    try {
      await check;
    } catch (error) {
      this.holders--;
      throw error;
    }
  }

  /** PeerConnections made or being made on the port. */
  get count(): number {
    return this.holders;
  }

  /** A PeerConnection made after `acquire()` has closed (or was never made). */
  release(): void {
    this.holders = Math.max(0, this.holders - 1);
  }

  private async check(): Promise<void> {
    const deadline = Date.now() + this.waitMs;
    while (!(await canBindUdp(this.host, this.port))) {
      if (Date.now() >= deadline) throw new MediaPortBusyError(this.port);
      await sleep(50);
    }
  }
}
