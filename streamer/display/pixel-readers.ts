/**
 * Where the capture's pixels come from: Xvfb's own framebuffer file (no request to the server but one round
 * trip), MIT-SHM segments the capture reads itself, or, where neither is there, replies on the X socket. Each
 * reader fills the rectangles it is given into a frame, each at its place.
 */
import { closeSync, ftruncateSync, openSync, readSync, readvSync, unlinkSync } from 'node:fs';
import { blit, type Rect } from './frame-pixels.ts';
import { call } from './x-call.ts';
import type { Framebuffer } from './x-server.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- the x11 package is untyped; its objects stay in the capture's files. */
type X = any;

const Z_PIXMAP = 2;
const ALL_PLANES = 0xffffffff;

/** Reads `rects` of the display into `into`, a frame `width` pixels wide, each at its place. */
export type PixelReader = (rects: readonly Rect[], into: Buffer, width: number) => Promise<void>;

/**
 * MIT-SHM segments for the x11 package that it never copies: an unlinked /dev/shm file of which the X server
 * gets the descriptor, and from which the capture reads each rectangle's rows into its frame itself (the
 * package's own provider would first copy the whole reply into a buffer of its own).
 */
export function segmentFiles() {
  let count = 0;
  const state = { latest: null as { size: number; fd: number } | null };
  const provider = {
    flavor: 'fd',
    zeroCopy: false,
    create(size: number) {
      const path = `/dev/shm/streamgate-capture-${process.pid}-${count++}`;
      const fd = openSync(path, 'w+', 0o600);
      try {
        ftruncateSync(fd, size);
      } catch (error) {
        closeSync(fd);
        throw error;
      } finally {
        unlinkSync(path);
      }
      state.latest = { size, fd };
      return { size, fd, buffer: Buffer.alloc(0) };
    },
    commit: () => undefined,
    sync: () => undefined,
    destroy(segment: { fd: number }) {
      closeSync(segment.fd);
    },
  };
  return { provider, state };
}

/**
 * How pixels are read: into a shared-memory segment of `bytes` (the rectangles of one frame side by side),
 * then from it into the frame, or, where the server or the connection cannot share memory, in the reply on
 * the socket.
 */
export async function pixelReader(
  X: X,
  root: number,
  bytes: number,
  files: ReturnType<typeof segmentFiles>,
): Promise<PixelReader> {
  const core: PixelReader = async (rects, into, width) => {
    const images = await Promise.all(
      rects.map((r) =>
        call<{ data: Buffer }>((cb) =>
          X.GetImage(Z_PIXMAP, root, r.x, r.y, r.width, r.height, ALL_PLANES, cb),
        ),
      ),
    );
    rects.forEach((r, i) => blit(into, width, r, (images[i] as { data: Buffer }).data));
  };
  const shm: X = await call((cb) => X.require('shm', cb)).catch(() => null);
  if (!shm || !(await call<boolean>((cb) => shm.usable(cb)).catch(() => false))) return core;
  const segment: X = await call((cb) => shm.createSegment(bytes, cb)).catch(() => null);
  const file = files.state.latest;
  if (!segment || !file) return core;
  return async (rects, into, width) => {
    let offset = 0;
    const at = rects.map((r) => {
      const here = offset;
      offset += r.width * r.height * 4;
      return here;
    });
    await Promise.all(
      rects.map((r, i) =>
        call((cb) =>
          shm.GetImage(root, r.x, r.y, r.width, r.height, ALL_PLANES, Z_PIXMAP, segment.shmseg, at[i], cb),
        ),
      ),
    );
    rects.forEach((r, i) => {
      const rowBytes = r.width * 4;
      const from = at[i] as number;
      if (r.width === width) {
        readSync(file.fd, into, r.y * width * 4, rowBytes * r.height, from);
        return;
      }
      for (let row = 0; row < r.height; row++) {
        readSync(file.fd, into, ((r.y + row) * width + r.x) * 4, rowBytes, from + row * rowBytes);
      }
    });
  };
}

/** The most buffers one readv takes (IOV_MAX). */
const MAX_IOVECS = 1024;

/**
 * Reads from the server's framebuffer file: each rectangle's rows straight into the frame, all of them in one
 * readv a rectangle (the bytes between two rows go to a scratch buffer), with no request to the server
 * but one round trip first. That round trip orders the read after the damage `next` just subtracted: what is
 * drawn after it is reported again, what was drawn before it is in the file.
 */
export function framebufferReader(X: X, framebuffer: Framebuffer): PixelReader {
  const { fd, offset, stride } = framebuffer;
  const gap = Buffer.alloc(stride);
  return async (rects, into, width) => {
    await call((cb) => X.GetInputFocus(cb));
    for (const r of rects) {
      const rowBytes = r.width * 4;
      const at = offset + r.y * stride + r.x * 4;
      if (r.x === 0 && rowBytes === stride && r.width === width) {
        readSync(fd, into, r.y * width * 4, rowBytes * r.height, at);
        continue;
      }
      const buffers: Buffer[] = [];
      for (let row = 0; row < r.height; row++) {
        const start = ((r.y + row) * width + r.x) * 4;
        buffers.push(into.subarray(start, start + rowBytes));
        if (row < r.height - 1) buffers.push(gap.subarray(0, stride - rowBytes));
      }
      let position = at;
      for (let i = 0; i < buffers.length; i += MAX_IOVECS) {
        position += readvSync(fd, buffers.slice(i, i + MAX_IOVECS), position);
      }
    }
  };
}
