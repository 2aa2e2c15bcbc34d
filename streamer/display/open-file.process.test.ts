/**
 * A real display host (Xvfb, xterm in its sandbox, its sound, the encoder, the stream server) whose viewer opens
 * a file: the program is restarted with the file's path, the session and its viewer stay; requests that break a
 * rule change nothing.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partsSeeingPrograms } from '../../test-support/display-parts.ts';
import { alive, processesNamed, processesWith } from '../../test-support/processes.ts';
import { freePort, freeUdpPort } from '../../test-support/ports.ts';
import { answers, until } from '../../test-support/until.ts';
import { openViewer, type Viewer } from '../../test-support/whep-viewer.ts';
import { sessionUid } from '../../sandbox/bwrap.ts';
import { startDisplayHost, type DisplayHost, type DisplayParts } from './display-host.ts';
import { parseLaunch, sandboxSettings } from '../../protocol/launch.ts';

describe('a display host asked to open a file', () => {
  let folder = '';
  let host: DisplayHost;
  let viewer: Viewer;
  let ended: { code: number; reason: string } | null = null;
  const spawned: number[] = [];
  /** The session's user on the host, which its sound server and capture run as. */
  let uid = 0;
  // The first program's title, to find its processes: no other run's processes carry it.
  const first = `first-program-${process.pid}`;

  beforeAll(async () => {
    const signalingPort = await freePort();
    uid = sessionUid(signalingPort);
    const options = parseLaunch(
      ['--signaling-port', String(signalingPort), '--media-port', String(await freeUdpPort())],
      {},
    );
    options.width = options.maxWidth = 320;
    options.height = options.maxHeight = 200;
    const seeing = partsSeeingPrograms((child) => child.pid !== undefined && spawned.push(child.pid));
    // The session's own folder, as the program sees it at ~/Files: the files are put there before the program starts.
    const parts: DisplayParts = {
      ...seeing,
      async openFiles(...args) {
        const files = await seeing.openFiles(...args);
        folder = files.folder.dir;
        writeFileSync(path.join(folder, 'Note.TXT'), 'hello from a file\n');
        writeFileSync(path.join(folder, 'photo.png'), 'not a text');
        return files;
      },
    };
    // `-hold` keeps the window of `cat` open, whatever `cat` finds.
    const opening = {
      extensions: new Set(['txt']),
      command: ['xterm', '-hold', '-e', 'sh', '-c', 'cp "$0" "$0.seen"; cat "$0"', '{file}'],
    };
    host = await startDisplayHost(
      options,
      { command: ['xterm', '-T', first], env: {}, opening },
      () => undefined,
      sandboxSettings(undefined),
      parts,
    );
    void host.done.then((ending) => (ended = ending));
    const url = `http://127.0.0.1:${host.signalingPort}`;
    await until('the session to be ready', () => answers(`${url}/health`), 30_000);
    viewer = await openViewer(url);
  }, 60_000);

  afterAll(async () => {
    await viewer?.close();
    await host?.close();
  });

  it('changes nothing for a wrong extension, a path, or a file not in the folder', async () => {
    const program = spawned.at(-1) as number;
    for (const [name, message] of [
      ['photo.png', 'This program opens only .txt files: “photo.png” is not one.'],
      ['../x', 'A file name cannot hold “/” or “\\”: files go straight into the folder.'],
      ['missing.txt', '“missing.txt” is not in ~/Files: upload it first.'],
    ]) {
      expect(await viewer.ask('openFile', 'openedFileResult', { name })).toEqual({
        event_type: 'openedFileResult',
        payload: { result: 'error', name, message },
      });
    }
    expect(spawned).toEqual([program]);
    expect(alive(program)).toBe(true);
    expect(processesWith(first).length).toBeGreaterThan(0);
    expect(ended).toBeNull();
  }, 30_000);

  it('restarts the program with the file, and the session, its picture and its viewer go on', async () => {
    const [program] = spawned as [number];
    const sound = await until('the sound to be captured', () => {
      const [server] = processesNamed('pulseaudio', uid);
      const [capture] = processesNamed('parec', uid);
      return server !== undefined && capture !== undefined && { server, capture };
    });
    const packetsBefore = viewer.videoPackets();
    expect(await viewer.ask('openFile', 'openedFileResult', { name: 'Note.TXT' })).toEqual({
      event_type: 'openedFileResult',
      payload: { result: 'success', name: 'Note.TXT' },
    });
    expect(spawned).toHaveLength(2);
    const next = spawned[1] as number;
    // The old program is gone, the new one runs with the file's path as the sandbox shows it.
    expect(alive(program)).toBe(false);
    expect(processesWith(first)).toEqual([]);
    expect(alive(next)).toBe(true);
    const opened = processesWith('/home/user/Files/Note.TXT');
    expect(opened).toContain(next);
    expect(ended).toBeNull();
    expect(host.stream.viewers()).toBe(1);
    // The program read the person's file where it sees the folder.
    await until('the program to read the file', () => existsSync(path.join(folder, 'Note.TXT.seen')), 10_000);
    expect(readFileSync(path.join(folder, 'Note.TXT.seen'), 'utf8')).toBe('hello from a file\n');
    // The picture goes on: new packets reach the same viewer (the new window is drawn).
    await until('video after the replacement', () => viewer.videoPackets() > packetsBefore, 10_000);
    expect((await fetch(`http://127.0.0.1:${host.signalingPort}/health`)).status).toBe(200);
    // The sound goes on too: the new program's sandbox has a server of its own in the session's sound folder,
    // and the capture, restarted, stays connected to it (a capture that cannot connect exits at once).
    expect(processesNamed('pulseaudio', uid)).not.toContain(sound.server);
    expect(processesNamed('pulseaudio', uid)).toHaveLength(1);
    let seen: { pid: number; at: number } | null = null;
    await until(
      'a capture of the new sound server',
      () => {
        const [capture] = processesNamed('parec', uid).filter((pid) => pid !== sound.capture);
        if (capture !== seen?.pid) seen = capture === undefined ? null : { pid: capture, at: Date.now() };
        return seen !== null && Date.now() - seen.at > 1_000;
      },
      20_000,
    );
  }, 30_000);

  it('ends the session when the new program exits, as the first one would have', async () => {
    const next = spawned[1] as number;
    const xterms = processesWith('/home/user/Files/Note.TXT').filter((pid) => pid !== next);
    expect(xterms.length).toBeGreaterThan(0);
    // The innermost process is the program itself; ending it ends the session.
    for (const pid of xterms) process.kill(pid, 'SIGTERM');
    const ending = await host.done;
    expect(ending.code).toBe(1);
    expect(ending.reason).toMatch(/^xterm /);
  }, 30_000);
});
