/**
 * The rules of opening a file: which names and extensions pass, what the folder must hold, and that a request
 * refused for any of them never touches the program. What the service passes is read with the launch
 * (protocol/launch.test.ts).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  folderProblem,
  openCommand,
  openedExtension,
  openFile,
  openProblem,
  type FileOpener,
} from './file-opening.ts';
import type { FileOpening } from '../../protocol/launch.ts';
import type { Replacement } from './program-life.ts';

const texts: FileOpening = { extensions: new Set(['txt', 'tar.gz']), command: null };

describe('the command that opens a file', () => {
  it('puts the path where the open command says, whole or within an argument', () => {
    const opening = { ...texts, command: ['viewer', '--open={file}', '-x'] };
    expect(openCommand(opening, ['ignored'], '/home/user/Files/a b.txt')).toEqual([
      'viewer',
      '--open=/home/user/Files/a b.txt',
      '-x',
    ]);
  });

  it("appends the path to the open command without a placeholder, or to the program's own command", () => {
    expect(openCommand({ ...texts, command: ['viewer'] }, ['program'], '/f.txt')).toEqual([
      'viewer',
      '/f.txt',
    ]);
    expect(openCommand(texts, ['program', '--flag'], '/f.txt')).toEqual(['program', '--flag', '/f.txt']);
  });
});

describe('names and extensions', () => {
  it('matches extensions whatever their case, the longest declared one included', () => {
    expect(openedExtension('Notes.TXT', texts.extensions)).toBe('txt');
    expect(openedExtension('backup.Tar.GZ', texts.extensions)).toBe('tar.gz');
    expect(openedExtension('notes.txt.png', texts.extensions)).toBeNull();
    expect(openedExtension('.txt', texts.extensions)).toBeNull();
    expect(openedExtension('txt', texts.extensions)).toBeNull();
  });

  it('says why a request cannot be opened, and lets a good one through', () => {
    expect(openProblem('a.txt', null)).toBe("This session's program does not open files.");
    expect(openProblem(undefined, texts)).toBe('Say which file to open: its name in ~/Files.');
    expect(openProblem('../x.txt', texts)).toBe(
      'A file name cannot hold “/” or “\\”: files go straight into the folder.',
    );
    expect(openProblem('..', texts)).toBe('“..” is not a file name.');
    expect(openProblem('photo.png', texts)).toBe(
      'This program opens only .txt, .tar.gz files: “photo.png” is not one.',
    );
    expect(openProblem('Notes.TXT', texts)).toBeNull();
  });
});

describe("the host's folder", () => {
  let folder = '';
  beforeAll(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'open-file-'));
    writeFileSync(path.join(folder, 'here.txt'), 'hello');
    mkdirSync(path.join(folder, 'folder.txt'));
    symlinkSync('/etc/hostname', path.join(folder, 'link.txt'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('must hold the name as a file of its own, neither a folder nor a link', () => {
    expect(folderProblem(folder, 'here.txt')).toBeNull();
    expect(folderProblem(folder, 'gone.txt')).toBe('“gone.txt” is not in ~/Files: upload it first.');
    expect(folderProblem(folder, 'folder.txt')).toBe(
      '“folder.txt” in ~/Files is not a file the program can open.',
    );
    expect(folderProblem(folder, 'link.txt')).toBe(
      '“link.txt” in ~/Files is not a file the program can open.',
    );
  });

  function opener(opening: FileOpening | null, answer: Replacement = { outcome: 'started' }) {
    const asked: (readonly string[])[] = [];
    const made: FileOpener = {
      opening,
      folder,
      program: ['viewer'],
      life: {
        // As ProgramLife does: the check first, in the request's turn, and nothing changes when it refuses.
        replace: (command, check = () => null) => {
          const refusal = check();
          if (refusal) return Promise.resolve({ outcome: 'refused', reason: refusal });
          asked.push(command);
          return Promise.resolve(answer);
        },
      },
    };
    return { made, asked };
  }

  it('restarts the program with the file as the program sees it, and says so', async () => {
    const { made, asked } = opener({ ...texts, command: ['viewer', '{file}'] });
    expect(await openFile('here.txt', made)).toEqual({
      event_type: 'openedFileResult',
      payload: { result: 'success', name: 'here.txt' },
    });
    expect(asked).toEqual([['viewer', '/home/user/Files/here.txt']]);
  });

  it('leaves the program alone when any rule refuses the request', async () => {
    const cases: [unknown, FileOpening | null, string][] = [
      ['here.txt', null, "This session's program does not open files."],
      ['here.png', texts, 'This program opens only .txt, .tar.gz files: “here.png” is not one.'],
      ['../x', texts, 'A file name cannot hold “/” or “\\”: files go straight into the folder.'],
      ['gone.txt', texts, '“gone.txt” is not in ~/Files: upload it first.'],
      [42, texts, 'Say which file to open: its name in ~/Files.'],
    ];
    for (const [name, opening, message] of cases) {
      const { made, asked } = opener(opening);
      expect(await openFile(name, made)).toEqual({
        event_type: 'openedFileResult',
        payload: { result: 'error', name: typeof name === 'string' ? name : '', message },
      });
      expect(asked).toEqual([]);
    }
  });

  it('refuses when the session has no folder, and passes on why a replacement did not start', async () => {
    const none = opener(texts);
    expect(await openFile('here.txt', { ...none.made, folder: null })).toMatchObject({
      payload: { result: 'error', message: 'This session has no ~/Files folder.' },
    });
    expect(none.asked).toEqual([]);
    const failed = opener(texts, { outcome: 'failed', reason: 'viewer exited with code 2' });
    expect(await openFile('here.txt', failed.made)).toMatchObject({
      payload: { result: 'error', message: '“here.txt” could not be opened: viewer exited with code 2' },
    });
  });
});
