/**
 * The picture: a static layer (background, name, version, profile) drawn once per size, and each frame
 * only the parts that change (an animated orbit, the status text, ripples, the pointer, the marks) are
 * redrawn over it, so a frame costs little more than copying its pixels out.
 */
import { createCanvas, type Canvas, type SKRSContext2D } from '@napi-rs/canvas';
import { bitsOf, CELL_COUNT, CELL_SIZE, POINTER_COLOR, POINTER_SIZE, STRIP_HEIGHT } from './marks.ts';

/** What the picture shows; the application updates it from input and messages. */
export interface SceneState {
  appName: string;
  appVersion: string;
  profile: string;
  stageUri: string;
  loadingState: string;
  pointer: { x: number; y: number } | null;
  lastKey: string;
  viewers: number;
  seq: number;
}

interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

const RIPPLE_MS = 700;

/** Draws frames of one size; make a new one to change size. */
export class Scene {
  readonly width: number;
  readonly height: number;
  /** Frames drawn so far; shown in text and in the marks. */
  frame = 0;
  private readonly canvas: Canvas;
  private readonly ctx: SKRSContext2D;
  private readonly background: Canvas;
  private dirty: Rect[] = [];
  private ripples: { x: number; y: number; at: number }[] = [];
  private readonly unit: number;

  constructor(
    width: number,
    height: number,
    private readonly state: SceneState,
  ) {
    this.width = width;
    this.height = height;
    this.unit = Math.max(0.5, Math.min(width / 1280, height / 720));
    this.canvas = createCanvas(width, height);
    this.ctx = this.canvas.getContext('2d');
    this.background = createCanvas(width, height);
    this.drawBackground(this.background.getContext('2d'));
    this.ctx.drawImage(this.background, 0, 0);
  }

  /** A click: a ripple that grows and fades where it happened. */
  addRipple(x: number, y: number, now: number): void {
    this.ripples.push({ x, y, at: now });
    if (this.ripples.length > 16) this.ripples.shift();
  }

  /** Draws the next frame and returns its RGBA pixels (width*height*4 bytes). */
  render(now: number): Buffer {
    const ctx = this.ctx;
    for (const r of this.dirty) ctx.drawImage(this.background, r.x, r.y, r.w, r.h, r.x, r.y, r.w, r.h);
    this.dirty = [];
    this.frame++;
    this.drawOrbit(now);
    this.drawStatus();
    this.drawRipples(now);
    this.drawPointer();
    this.drawStrip();
    return this.canvas.data();
  }

  private mark(x: number, y: number, w: number, h: number): void {
    const x0 = Math.max(0, Math.floor(x));
    const y0 = Math.max(0, Math.floor(y));
    const x1 = Math.min(this.width, Math.ceil(x + w));
    const y1 = Math.min(this.height, Math.ceil(y + h));
    if (x1 > x0 && y1 > y0) this.dirty.push({ x: x0, y: y0, w: x1 - x0, h: y1 - y0 });
  }

  private drawBackground(ctx: SKRSContext2D): void {
    const { width, height, unit } = this;
    const gradient = ctx.createLinearGradient(0, 0, width, height);
    gradient.addColorStop(0, '#0b1d33');
    gradient.addColorStop(1, '#123d3a');
    ctx.fillStyle = gradient;
    ctx.fillRect(0, 0, width, height);
    // A faint grid: the stage the scene stands on.
    ctx.strokeStyle = 'rgba(120, 200, 255, 0.12)';
    ctx.lineWidth = 1;
    const step = Math.round(64 * unit);
    for (let x = 0; x < width; x += step) ctx.strokeRect(x + 0.5, -1, 0, height + 2);
    for (let y = 0; y < height; y += step) ctx.strokeRect(-1, y + 0.5, width + 2, 0);
    ctx.fillStyle = '#ffffff';
    ctx.font = `bold ${Math.round(40 * unit)}px sans-serif`;
    ctx.fillText(this.state.appName, 32 * unit, 64 * unit);
    ctx.fillStyle = '#9fd3ff';
    ctx.font = `${Math.round(22 * unit)}px sans-serif`;
    ctx.fillText(`Version ${this.state.appVersion}  ·  Profile ${this.state.profile}`, 32 * unit, 100 * unit);
    ctx.fillText(`${width}x${height}`, 32 * unit, 130 * unit);
  }

  private drawOrbit(now: number): void {
    const { ctx, unit } = this;
    const r = 110 * unit;
    const cx = this.width - r - 40 * unit;
    const cy = 60 * unit + r;
    this.mark(cx - r - 14 * unit, cy - r - 14 * unit, 2 * r + 28 * unit, 2 * r + 28 * unit);
    const t = now / 1000;
    ctx.strokeStyle = 'rgba(159, 211, 255, 0.5)';
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.arc(cx, cy, r * 0.55, 0, Math.PI * 2);
    ctx.stroke();
    const colors = ['#ffb000', '#3ddc97', '#4aa8ff', '#ffffff'];
    for (let i = 0; i < colors.length; i++) {
      const angle = t * (0.8 + i * 0.35) + (i * Math.PI) / 2;
      const radius = r * (0.35 + i * 0.2);
      ctx.fillStyle = colors[i] as string;
      ctx.beginPath();
      ctx.arc(
        cx + Math.cos(angle) * radius,
        cy + Math.sin(angle) * radius,
        (12 - i * 2) * unit,
        0,
        Math.PI * 2,
      );
      ctx.fill();
    }
  }

  private drawStatus(): void {
    const { ctx, unit, state } = this;
    const x = 32 * unit;
    const top = 160 * unit;
    const line = 30 * unit;
    const pointer = state.pointer ? `${Math.round(state.pointer.x)}, ${Math.round(state.pointer.y)}` : 'none';
    const lines = [
      `Stage: ${state.stageUri || 'none'}${state.stageUri ? ` (${state.loadingState})` : ''}`,
      `Pointer: ${pointer}`,
      `Last key: ${state.lastKey || 'none'}`,
      `Frame: ${this.frame}`,
      `Viewers: ${state.viewers}`,
    ];
    ctx.font = `${Math.round(22 * unit)}px sans-serif`;
    ctx.fillStyle = '#e8f4ff';
    const maxWidth = this.width - x - 300 * unit;
    for (let i = 0; i < lines.length; i++) {
      ctx.fillText(lines[i] as string, x, top + i * line, Math.max(100, maxWidth));
    }
    this.mark(x - 2, top - line, Math.max(100, maxWidth) + 8, line * (lines.length + 0.5));
  }

  private drawRipples(now: number): void {
    const { ctx, unit } = this;
    this.ripples = this.ripples.filter((r) => now - r.at < RIPPLE_MS);
    for (const ripple of this.ripples) {
      const p = (now - ripple.at) / RIPPLE_MS;
      const radius = (8 + 60 * p) * unit;
      ctx.strokeStyle = `rgba(120, 255, 230, ${1 - p})`;
      ctx.lineWidth = 4 * unit;
      ctx.beginPath();
      ctx.arc(ripple.x, ripple.y, radius, 0, Math.PI * 2);
      ctx.stroke();
      const edge = radius + 4 * unit;
      this.mark(ripple.x - edge, ripple.y - edge, 2 * edge, 2 * edge);
    }
  }

  private drawPointer(): void {
    const p = this.state.pointer;
    if (!p) return;
    const x = Math.round(p.x) - POINTER_SIZE / 2;
    const y = Math.round(p.y) - POINTER_SIZE / 2;
    this.ctx.fillStyle = POINTER_COLOR;
    this.ctx.fillRect(x, y, POINTER_SIZE, POINTER_SIZE);
    this.mark(x, y, POINTER_SIZE, POINTER_SIZE);
  }

  private drawStrip(): void {
    const { ctx, height } = this;
    const rows = [bitsOf(this.frame), bitsOf(this.state.seq)];
    for (let row = 0; row < rows.length; row++) {
      const y = height - STRIP_HEIGHT + row * CELL_SIZE;
      const bits = rows[row] as boolean[];
      for (let i = 0; i < CELL_COUNT; i++) {
        ctx.fillStyle = bits[i] ? '#ffffff' : '#000000';
        ctx.fillRect(i * CELL_SIZE, y, CELL_SIZE, CELL_SIZE);
      }
    }
  }
}
