/**
 * The display host's clipboard against a real Xvfb: a second connection plays the program, owning
 * selections and asking for them as X programs do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerRequest } from './clipboard.ts';
import { call } from './x-call.ts';
import { openDisplay, XClient } from './x-client.ts';
import { startXServer, type XServer } from './x-server.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- the x11 package is untyped. */
type X = any;

const UTF8 = 'UTF8_STRING';

/** A program on the display: it owns selections with the text given, and asks for the clipboard's text. */
async function programOn(x: XServer) {
  const { X, root } = await openDisplay(x.display, { authFile: x.authFile });
  const atom = (name: string) => call<number>((cb) => X.InternAtom(false, name, cb));
  const [clipboard, primary, utf8, into] = await Promise.all([
    atom('CLIPBOARD'),
    1,
    atom(UTF8),
    atom('PROGRAM_PASTE'),
  ]);
  const wid: number = X.AllocID();
  X.CreateWindow(wid, root, 0, 0, 1, 1, 0, 0, 0, 0, {});
  const owned = new Map<number, string>();
  let pasted: ((text: string) => void) | null = null;
  X.on('event', (event: X) => {
    if (event.name === 'SelectionRequest' && owned.has(event.selection)) {
      const text = owned.get(event.selection) as string;
      X.ChangeProperty(0, event.requestor, event.property, utf8, 8, Buffer.from(text));
      answerRequest(X, event, event.property);
    } else if (event.name === 'SelectionNotify' && event.requestor === wid && pasted) {
      X.GetProperty(1, wid, into, 0, 0, 1024, (_err: Error | null, prop: X) =>
        pasted?.(prop.data.toString('utf8')),
      );
    }
  });
  return {
    X,
    /** Takes `selection` (CLIPBOARD or PRIMARY) with `text`, as a program copying does. */
    own(selection: 'CLIPBOARD' | 'PRIMARY', text: string) {
      const which = selection === 'CLIPBOARD' ? clipboard : primary;
      owned.set(which, text);
      X.SetSelectionOwner(wid, which, 0);
    },
    /** Pastes: asks the clipboard's owner for its text. */
    paste(): Promise<string> {
      return new Promise((resolve) => {
        pasted = resolve;
        X.ConvertSelection(wid, clipboard, utf8, into, 0);
      });
    },
    /** A round trip: every request sent before has been handled by the server. */
    sync: () => call((cb) => X.GetInputFocus(cb)),
  };
}

describe('the clipboard of a real display', () => {
  let x: XServer;
  let host: XClient;
  let program: Awaited<ReturnType<typeof programOn>>;
  const received: string[] = [];
  /** Resolves with the text the host sends on next. */
  const next = () => new Promise<string>((resolve) => host.clipboard.once('text', resolve));

  beforeAll(async () => {
    x = await startXServer(320, 200, () => undefined, false);
    host = await XClient.connect(x.display, x.authFile);
    host.clipboard.on('text', (text) => received.push(text));
    program = await programOn(x);
  });

  afterAll(async () => {
    host?.close();
    program?.X.terminate();
    await x?.stop();
  });

  it('sends what a program copies once, as the X server says the clipboard changed, and never a mere selection', async () => {
    const first = next();
    program.own('CLIPBOARD', 'copied once');
    expect(await first).toBe('copied once');
    // Text merely selected (PRIMARY), then a second copy: only the copy comes, and the first is not sent again.
    program.own('PRIMARY', 'only selected');
    const second = next();
    program.own('CLIPBOARD', 'copied twice');
    expect(await second).toBe('copied twice');
    // The same text copied again is nothing new.
    program.own('CLIPBOARD', 'copied twice');
    const third = next();
    program.own('CLIPBOARD', 'copied thrice');
    expect(await third).toBe('copied thrice');
    expect(received).toEqual(['copied once', 'copied twice', 'copied thrice']);
  });

  it('hands a viewer’s text to a program that pastes, without sending it back', async () => {
    const before = received.length;
    host.clipboard.set('from the viewer ✓');
    await program.sync();
    expect(await program.paste()).toBe('from the viewer ✓');
    // A program that copies the same text over is not news either; a different one is.
    program.own('CLIPBOARD', 'from the viewer ✓');
    const after = next();
    program.own('CLIPBOARD', 'the program’s own');
    expect(await after).toBe('the program’s own');
    expect(received.slice(before)).toEqual(['the program’s own']);
  });
});
