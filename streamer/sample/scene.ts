/**
 * The picture. A canvas draws what needs fonts and gradients: the static background once per size, and
 * the status panel when its text changes: at once for what a person did (a key, a stage), else at most ten times
 * a second (the frame counter). Its pixels are read back only then.
 * Each frame starts from a copy of that base and the moving parts (orbit, ripples, pointer, and the marks
 * strip when tests ask for it) are drawn straight into the buffer, so a 720p frame costs about a memory copy.
 */
import { createRequire } from 'node:module';
import type { Canvas, SKRSContext2D } from '@napi-rs/canvas';
import { bitsOf, CELL_COUNT, CELL_SIZE, POINTER_SIZE, STRIP_HEIGHT } from './marks.ts';
import { blit, fillCircle, fillRect, strokeRing, type Pixels, type Rgb } from './pixels.ts';

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
  /** Whether the marks strip that tests read (marks.ts) is drawn; the pointer square always is. */
  testMarks: boolean;
}

const RIPPLE_MS = 700;
/** The status text is redrawn at most this often for the counters; the marks carry the exact per-frame values. */
const PANEL_INTERVAL_MS = 100;
/** Pure magenta: the pointer's colour (marks.ts), used for nothing else. */
const MAGENTA: Rgb = [255, 0, 255];
const WHITE: Rgb = [255, 255, 255];
const BLACK: Rgb = [0, 0, 0];
const RIPPLE: Rgb = [120, 255, 230];
const ORBIT: Rgb[] = [
  [255, 176, 0],
  [61, 220, 151],
  [74, 168, 255],
  [255, 255, 255],
];

/**
 * The canvas library (a native module, about 50 ms to load), loaded by the first scene rather than with this
 * module: the application starts its encoder first, and ffmpeg loads its own libraries meanwhile.
 */
let canvasLibrary: typeof import('@napi-rs/canvas') | undefined;

function createCanvas(width: number, height: number): Canvas {
  canvasLibrary ??= createRequire(import.meta.url)('@napi-rs/canvas') as typeof import('@napi-rs/canvas');
  return canvasLibrary.createCanvas(width, height);
}

/** Draws frames of one size; make a new one to change size. */
export class Scene {
  readonly width: number;
  readonly height: number;
  /** Frames drawn so far; shown in the panel and in the marks. */
  frame = 0;
  private readonly unit: number;
  private readonly background: Canvas;
  /** Background with the current panel: where every frame starts. */
  private readonly base: Buffer;
  private readonly panel: { canvas: Canvas; ctx: SKRSContext2D; x: number; y: number; w: number; h: number };
  private panelText = '';
  private panelAt = -Infinity;
  /** What a person changed (key, stage) when the panel was drawn last: a change of it is drawn at once. */
  private panelAsked = '';
  private readonly orbit: { cx: number; cy: number; r: number };
  private ripples: { x: number; y: number; at: number }[] = [];
  private readonly own: Buffer;

  constructor(
    width: number,
    height: number,
    private readonly state: SceneState,
  ) {
    this.width = width;
    this.height = height;
    const unit = Math.max(0.5, Math.min(width / 1280, height / 720));
    this.unit = unit;
    const r = 110 * unit;
    this.orbit = { cx: width - r - 40 * unit, cy: 60 * unit + r, r };
    this.background = createCanvas(width, height);
    this.drawBackground(this.background.getContext('2d'));
    this.base = Buffer.from(this.background.data());
    const x = Math.round(32 * unit);
    const y = Math.round(140 * unit);
    const w = Math.max(16, Math.min(Math.round(this.orbit.cx - r - 20 * unit) - x, Math.round(900 * unit)));
    const h = Math.min(Math.round(160 * unit), height - STRIP_HEIGHT - y - 4);
    const canvas = createCanvas(w, Math.max(1, h));
    this.panel = { canvas, ctx: canvas.getContext('2d'), x, y, w, h: Math.max(1, h) };
    this.own = Buffer.alloc(width * height * 4);
  }

  /** A click: a ripple that grows and fades where it happened. */
  addRipple(x: number, y: number, now: number): void {
    this.ripples.push({ x, y, at: now });
    if (this.ripples.length > 16) this.ripples.shift();
  }

  /**
   * Draws the next frame into `out` (width*height*4 bytes; a buffer of its own when omitted) and returns
   * it. The caller may hand `out` to a slow writer and pass another buffer next time.
   */
  render(now: number, out: Buffer = this.own): Buffer {
    this.frame++;
    this.updatePanel(now);
    this.base.copy(out);
    const pixels: Pixels = { data: out, width: this.width, height: this.height };
    this.drawOrbit(pixels, now);
    this.drawRipples(pixels, now);
    const p = this.state.pointer;
    if (p) {
      const x = Math.round(p.x) - POINTER_SIZE / 2;
      const y = Math.round(p.y) - POINTER_SIZE / 2;
      fillRect(pixels, x, y, POINTER_SIZE, POINTER_SIZE, MAGENTA);
    }
    if (this.state.testMarks) this.drawStrip(pixels);
    return out;
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
    ctx.fillText(this.state.appName, 32 * unit, 64 * unit, width - 320 * unit);
    ctx.fillStyle = '#9fd3ff';
    ctx.font = `${Math.round(22 * unit)}px sans-serif`;
    ctx.fillText(`Version ${this.state.appVersion}  ·  Profile ${this.state.profile}`, 32 * unit, 100 * unit);
    ctx.fillText(`${width}x${height}`, 32 * unit, 126 * unit);
    const { cx, cy, r } = this.orbit;
    ctx.strokeStyle = 'rgba(159, 211, 255, 0.5)';
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.arc(cx, cy, r * 0.55, 0, Math.PI * 2);
    ctx.stroke();
  }

  private updatePanel(now: number): void {
    const { state } = this;
    const asked = `${state.lastKey}\n${state.stageUri}\n${state.loadingState}`;
    if (now - this.panelAt < PANEL_INTERVAL_MS && asked === this.panelAsked) return;
    const pointer = state.pointer ? `${Math.round(state.pointer.x)}, ${Math.round(state.pointer.y)}` : 'none';
    const lines = [
      `Stage: ${state.stageUri || 'none'}${state.stageUri ? ` (${state.loadingState})` : ''}`,
      `Pointer: ${pointer}    Last key: ${state.lastKey || 'none'}`,
      `Frame: ${this.frame}`,
      `Viewers: ${state.viewers}`,
    ];
    const text = lines.join('\n');
    if (text === this.panelText) return;
    this.panelText = text;
    this.panelAt = now;
    this.panelAsked = asked;
    const { canvas, ctx, x, y, w, h } = this.panel;
    // A picture too small for the panel shows none; the marks and the moving parts still run.
    if (x + w > this.width || y + h > this.height - STRIP_HEIGHT) return;
    const unit = this.unit;
    ctx.drawImage(this.background, x, y, w, h, 0, 0, w, h);
    ctx.font = `${Math.round(22 * unit)}px sans-serif`;
    ctx.fillStyle = '#e8f4ff';
    lines.forEach((line, i) => ctx.fillText(line, 0, (28 + i * 34) * unit, w));
    blit({ data: this.base, width: this.width, height: this.height }, canvas.data(), x, y, w, h);
  }

  private drawOrbit(p: Pixels, now: number): void {
    const { cx, cy, r } = this.orbit;
    const t = now / 1000;
    for (let i = 0; i < ORBIT.length; i++) {
      const angle = t * (0.8 + i * 0.35) + (i * Math.PI) / 2;
      const radius = r * (0.35 + i * 0.2);
      const dot = (12 - i * 2) * this.unit;
      fillCircle(p, cx + Math.cos(angle) * radius, cy + Math.sin(angle) * radius, dot, ORBIT[i] as Rgb);
    }
  }

  private drawRipples(p: Pixels, now: number): void {
    this.ripples = this.ripples.filter((r) => now - r.at < RIPPLE_MS);
    for (const ripple of this.ripples) {
      const k = (now - ripple.at) / RIPPLE_MS;
      strokeRing(p, ripple.x, ripple.y, (8 + 60 * k) * this.unit, 4 * this.unit, RIPPLE, 1 - k);
    }
  }

  private drawStrip(p: Pixels): void {
    const rows = [bitsOf(this.frame), bitsOf(this.state.seq)];
    for (let row = 0; row < rows.length; row++) {
      const y = this.height - STRIP_HEIGHT + row * CELL_SIZE;
      const bits = rows[row] as boolean[];
      for (let i = 0; i < CELL_COUNT; i++)
        fillRect(p, i * CELL_SIZE, y, CELL_SIZE, CELL_SIZE, bits[i] ? WHITE : BLACK);
    }
  }
}
