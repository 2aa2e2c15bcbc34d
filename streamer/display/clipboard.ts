/**
 * The display's CLIPBOARD both ways, on the display host's X connection. The X server says when a program
 * takes the clipboard (XFIXES SelectSelectionInput): its text is then asked for once and sent on if it is
 * new. Nothing is polled. The primary selection (text merely selected) is left alone: it is not the person's
 * to paste elsewhere.
 *
 * Each selection watched has its own state (the text last seen, a request in flight), so that a reply
 * never lands in another's. Text from a viewer is put on the clipboard with this connection's own window
 * as its owner, and handed to any program that asks.
 */
import { EventEmitter } from 'node:events';
import { call } from './x-call.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- the x11 package is untyped; its objects stay in the X files. */
type X = any;

const ATOM_ATOM = 4;
const ATOM_STRING = 31;
/** The core SelectionNotify event (a conversion's answer), as opposed to XFIXES's of the same name. */
const CORE_SELECTION_NOTIFY = 31;
/** The most text taken from a program's clipboard (the viewer's own limit too). */
export const CLIPBOARD_MAX_BYTES = 64 * 1024;

/** One selection's state: what was last seen on it, and whether its text is being asked for. */
interface SelectionState {
  /** The property its text is delivered into, on our window. */
  property: number;
  last: string;
  asking: boolean;
  /** The owner changed again while its text was being asked for: ask again once the answer is in. */
  again: boolean;
  /** A viewer's text was put on the selection while its text was being asked for: that answer is old. */
  stale: boolean;
}

export interface ClipboardEvents {
  /** New text a program of the display put on the clipboard. */
  text: [string];
}

/** The clipboard of one display; `Clipboard.start` makes it. */
export class Clipboard extends EventEmitter<ClipboardEvents> {
  /** What a viewer put on the clipboard: handed to the programs that ask for it. */
  private offered = '';
  private closed = false;

  private constructor(
    private readonly X: X,
    private readonly own: number,
    private readonly atoms: { CLIPBOARD: number; TARGETS: number; UTF8_STRING: number },
    private readonly selectionNotify: number,
    private readonly selections: Map<number, SelectionState>,
  ) {
    super();
  }

  /** Watches the CLIPBOARD of the display `X` is connected to, `root` its root window. */
  static async start(X: X, root: number): Promise<Clipboard> {
    const intern = (name: string) => call<number>((cb) => X.InternAtom(false, name, cb));
    const fixes: X = await call((cb) => X.require('fixes', cb));
    const atoms = {
      CLIPBOARD: await intern('CLIPBOARD'),
      TARGETS: await intern('TARGETS'),
      UTF8_STRING: await intern('UTF8_STRING'),
    };
    const property = await intern('STREAMGATE_CLIPBOARD');
    // An invisible window of our own: owner of the text we offer, receiver of the text we ask for.
    const own: number = X.AllocID();
    X.CreateWindow(own, root, -10, -10, 1, 1, 0, 0, 0, 0, {});
    const { SetSelectionOwner, SelectionWindowDestroy, SelectionClientClose } = fixes.SelectionEventMask;
    fixes.SelectSelectionInput(
      own,
      atoms.CLIPBOARD,
      SetSelectionOwner | SelectionWindowDestroy | SelectionClientClose,
    );
    const selections = new Map([
      [atoms.CLIPBOARD, { property, last: '', asking: false, again: false, stale: false }],
    ]);
    const clipboard = new Clipboard(
      X,
      own,
      atoms,
      fixes.firstEvent + fixes.events.SelectionNotify,
      selections,
    );
    X.on('event', (event: X) => clipboard.onEvent(event));
    return clipboard;
  }

  /** The clipboard's text as last seen: what a program put there, or a viewer's (`set`); '' before any. */
  get text(): string {
    return (this.selections.get(this.atoms.CLIPBOARD) as SelectionState).last;
  }

  /** Puts `text` on the clipboard: this connection owns it and hands it out from now on. */
  set(text: string): void {
    this.offered = text;
    // Not sent back to the viewers when a program takes the same text over.
    const state = this.selections.get(this.atoms.CLIPBOARD) as SelectionState;
    state.last = text;
    state.stale = state.asking;
    this.X.SetSelectionOwner(this.own, this.atoms.CLIPBOARD, 0);
  }

  close(): void {
    this.closed = true;
    this.removeAllListeners();
  }

  private onEvent(event: X): void {
    if (this.closed) return;
    if (event.type === this.selectionNotify) return this.ownerChanged(event);
    if (event.name === 'SelectionRequest' && event.owner === this.own) return this.answer(event);
    if (event.type === CORE_SELECTION_NOTIFY && event.requestor === this.own) return this.take(event);
  }

  /** A program took the selection (or its owner went): ask the new owner for its text. */
  private ownerChanged(event: X): void {
    const state = this.selections.get(event.selection);
    if (!state || event.owner === 0 || event.owner === this.own) return;
    if (state.asking) {
      state.again = true;
      return;
    }
    state.asking = true;
    this.X.ConvertSelection(
      this.own,
      event.selection,
      this.atoms.UTF8_STRING,
      state.property,
      event.selectionTimestamp,
    );
  }

  /** The owner's answer: its text is in our property (or property 0: it had none to give). */
  private take(event: X): void {
    const selection: number = event.selection;
    const state = this.selections.get(selection);
    if (!state) return;
    const done = (text: string | null) => {
      state.asking = false;
      if (state.stale) text = null;
      state.stale = false;
      if (text !== null && text !== '' && text !== state.last) {
        state.last = text;
        this.emit('text', text);
      }
      if (!state.again || this.closed) return;
      state.again = false;
      state.asking = true;
      this.X.ConvertSelection(this.own, selection, this.atoms.UTF8_STRING, state.property, 0);
    };
    if (event.property === 0) return done(null);
    this.X.GetProperty(
      1,
      this.own,
      state.property,
      0,
      0,
      CLIPBOARD_MAX_BYTES / 4,
      (err: Error | null, prop: X) => {
        const utf8 = prop?.type === this.atoms.UTF8_STRING || prop?.type === ATOM_STRING;
        done(err || !utf8 || !prop.data ? null : (prop.data as Buffer).toString('utf8'));
      },
    );
  }

  /** A program asks for the text we offer. */
  private answer(event: X): void {
    const { requestor, selection, target } = event;
    let property: number = event.property || target;
    if (selection !== this.atoms.CLIPBOARD) {
      property = 0;
    } else if (target === this.atoms.TARGETS) {
      const targets = [this.atoms.TARGETS, this.atoms.UTF8_STRING, ATOM_STRING];
      this.X.ChangeProperty(0, requestor, property, ATOM_ATOM, 32, targets);
    } else if (target === this.atoms.UTF8_STRING || target === ATOM_STRING) {
      this.X.ChangeProperty(0, requestor, property, target, 8, Buffer.from(this.offered, 'utf8'));
    } else {
      property = 0;
    }
    answerRequest(this.X, event, property);
  }
}

/** Tells the program behind `request` (a SelectionRequest) that its text is in `property` (0: none given). */
export function answerRequest(X: X, request: X, property: number): void {
  const { requestor, selection, target, time } = request;
  X.SendEvent(requestor, 0, 0, {
    name: 'SelectionNotify',
    seq: 0,
    time,
    requestor,
    selection,
    target,
    property,
  });
}
