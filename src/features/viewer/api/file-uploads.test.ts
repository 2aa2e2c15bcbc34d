import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../lib/api-client';
import { FileUploads, type SendFile } from './file-uploads';
import type { UploadOptions } from './upload-file';

/** A sender whose uploads the test finishes by hand, one record per file sent. */
function manualSender() {
  const calls: { name: string; options: UploadOptions; done: () => void; fail: (e: unknown) => void }[] = [];
  const send: SendFile = (file, options) =>
    new Promise<void>((resolve, reject) => {
      calls.push({ name: file.name, options, done: resolve, fail: reject });
      options.signal?.addEventListener('abort', () =>
        reject(new DOMException('The upload was cancelled.', 'AbortError')),
      );
    });
  return { calls, send };
}

const file = (name: string, size = 4) => new File([new Uint8Array(size)], name);
/** Lets the queue's promise callbacks run: a few turns of the microtask queue, no time passes. */
async function settle() {
  for (let turn = 0; turn < 10; turn++) await Promise.resolve();
}

describe('FileUploads', () => {
  it('sends one file at a time, in order, each row going once it arrived', async () => {
    const { calls, send } = manualSender();
    const uploads = new FileUploads(send);
    const arrived: string[] = [];
    uploads.add(file('a'), null, () => void arrived.push('a'));
    uploads.add(file('b', 6), null, () => void arrived.push('b'));
    expect(calls.map((c) => c.name)).toEqual(['a']);
    expect(uploads.rows().map((r) => [r.name, r.state])).toEqual([
      ['a', 'sending'],
      ['b', 'waiting'],
    ]);
    expect(uploads.queuedBytes()).toBe(10);
    calls[0]!.options.onProgress?.(2, 4);
    expect(uploads.rows()[0]).toMatchObject({ state: 'sending', loaded: 2 });
    calls[0]!.done();
    await settle();
    expect(arrived).toEqual(['a']);
    expect(calls.map((c) => c.name)).toEqual(['a', 'b']);
    expect(uploads.rows().map((r) => r.name)).toEqual(['b']);
  });

  it('keeps a failure as a row with its sentence until dismissed, and goes on with the next', async () => {
    const { calls, send } = manualSender();
    const uploads = new FileUploads(send);
    uploads.add(file('a'), null);
    uploads.add(file('b'), null);
    calls[0]!.fail(new ApiError(507, 'Only 2 B are left.'));
    await settle();
    expect(uploads.rows()[0]).toMatchObject({ name: 'a', state: 'failed', problem: 'Only 2 B are left.' });
    expect(calls.map((c) => c.name)).toEqual(['a', 'b']);
    // A failure takes no room: only b is still on its way.
    expect(uploads.queuedBytes()).toBe(4);
    uploads.dismiss(uploads.rows()[0]!.id);
    expect(uploads.rows().map((r) => r.name)).toEqual(['b']);
  });

  it('never sends a file refused before, nor one cancelled while it waited', async () => {
    const { calls, send } = manualSender();
    const uploads = new FileUploads(send);
    uploads.add(file('.'), '“.” is not a file name.');
    uploads.add(file('a'), null);
    uploads.add(file('b'), null);
    const waiting = uploads.rows().find((r) => r.name === 'b')!;
    uploads.cancel(waiting.id);
    calls[0]!.done();
    await settle();
    expect(calls.map((c) => c.name)).toEqual(['a']);
    expect(uploads.rows()).toEqual([
      { id: expect.any(Number), name: '.', size: 4, state: 'failed', problem: '“.” is not a file name.' },
    ]);
  });

  it('stops the upload under way when cancelled or stopped, and leaves no row of it', async () => {
    const { calls, send } = manualSender();
    const uploads = new FileUploads(send);
    uploads.add(file('a'), null);
    uploads.cancel(uploads.rows()[0]!.id);
    expect(calls[0]!.options.signal?.aborted).toBe(true);
    await settle();
    expect(uploads.rows()).toEqual([]);
    uploads.add(file('b'), null);
    uploads.add(file('c'), null);
    uploads.stopAll();
    expect(calls[1]!.options.signal?.aborted).toBe(true);
    await settle();
    expect(uploads.rows()).toEqual([]);
    expect(calls.map((c) => c.name)).toEqual(['a', 'b']);
  });
});
