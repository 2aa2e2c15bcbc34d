import { describe, expect, it } from 'vitest';
import { lastWords } from './x-server.ts';

describe('why the X server ended', () => {
  it('is its last line but the complaint about the framebuffer file the host removed at start', () => {
    const stderr = [
      '_XSERVTransSocketUNIXCreateListener: ...SocketCreateListener() failed',
      '_XSERVTransMakeAllCOTSServerListeners: server already running',
      'Fatal server error:',
      "(EE) Cannot establish any listening sockets - Make sure an X server isn't already running(EE)",
      'unlink /dev/shm/streamgate-fb-IoiKtq/Xvfb_screen0 failed, No such file or directory',
      '',
    ].join('\n');
    expect(lastWords(stderr)).toMatch(/^\(EE\) Cannot establish any listening sockets/);
    expect(lastWords('unlink /dev/shm/x/Xvfb_screen0 failed, No such file or directory')).toMatch(/^unlink/);
    expect(lastWords('')).toBe('');
  });
});
