/**
 * A stand-in for XMLHttpRequest with the surface uploadFile uses, so that a test drives an upload: it says
 * how far the body went (`progress`) and how the service answered (`respond`), or fails it (`fail`).
 */

/** The `upload` side, where progress is reported. */
class FakeUpload {
  onprogress: ((event: { loaded: number; total: number; lengthComputable: boolean }) => void) | null = null;
}

export class FakeXhr {
  /** Every request made since the last `reset`, oldest first. */
  static sent: FakeXhr[] = [];
  static reset(): void {
    FakeXhr.sent = [];
  }

  readonly upload = new FakeUpload();
  readonly headers: Record<string, string> = {};
  method = '';
  url = '';
  body: unknown;
  status = 0;
  responseText = '';
  aborted = false;
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;

  open(method: string, url: string): void {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name: string, value: string): void {
    this.headers[name] = value;
  }
  send(body: unknown): void {
    this.body = body;
    FakeXhr.sent.push(this);
  }
  abort(): void {
    this.aborted = true;
    this.onabort?.();
  }

  /** The body went `loaded` bytes of `total`. */
  progress(loaded: number, total: number): void {
    this.upload.onprogress?.({ loaded, total, lengthComputable: true });
  }
  /** The service answered `status` with `body` (JSON). */
  respond(status: number, body: unknown): void {
    this.status = status;
    this.responseText = body === undefined ? '' : JSON.stringify(body);
    this.onload?.();
  }
  /** No answer: the network failed. */
  fail(): void {
    this.onerror?.();
  }
}
