/**
 * The sandbox's command line: what each program is given and what it is not. That bwrap and the kernel then hold
 * to it is tested with a hostile program in reliability/sandbox.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SANDBOX_SOUND_DIR, sandboxLaunch, sessionUid, systemLayout, type SandboxSpec } from './bwrap.ts';

const spec: SandboxSpec = {
  command: ['xterm', '-e', 'bash'],
  env: { LANG: 'de_DE.UTF-8' },
  uid: sessionUid(47002),
  seccomp: Buffer.alloc(16),
  cgroup: ['/sys/fs/cgroup/pids/streamgate/s/program'],
  display: { socket: '/tmp/.X11-unix/X5', xauthority: Buffer.from('cookie') },
  network: false,
  gpu: false,
};

/** The value after each occurrence of `flag`. */
function after(args: string[], flag: string, count = 1): string[][] {
  const found: string[][] = [];
  args.forEach((arg, i) => {
    if (arg === flag) found.push(args.slice(i + 1, i + 1 + count));
  });
  return found;
}

let folder: string | undefined;
afterEach(() => folder && rmSync(folder, { recursive: true, force: true }));

describe('sandboxLaunch', () => {
  it('switches to the session’s own user, then makes every namespace and drops every privilege', () => {
    const { file, args } = sandboxLaunch(spec);
    expect(file).toBe('/bin/sh');
    const setpriv = args.indexOf('setpriv');
    expect(args.slice(setpriv, setpriv + 6)).toEqual([
      'setpriv',
      `--reuid=${1_500_047_002}`,
      `--regid=${1_500_047_002}`,
      '--clear-groups',
      '--no-new-privs',
      'bwrap',
    ]);
    for (const flag of [
      '--unshare-user',
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-net',
      '--disable-userns',
      '--die-with-parent',
      '--new-session',
      '--clearenv',
    ])
      expect(args).toContain(flag);
    expect(after(args, '--cap-drop')).toEqual([['ALL']]);
    // The cgroup is joined by the shell, before setpriv and bwrap run.
    expect(args.indexOf('/sys/fs/cgroup/pids/streamgate/s/program')).toBeLessThan(setpriv);
    expect(args.slice(-4)).toEqual(['--', 'xterm', '-e', 'bash']);
  });

  it('shows a read-only system, private writable folders of bounded size, and its display as :0', () => {
    const { args, extra } = sandboxLaunch(spec);
    expect(after(args, '--ro-bind', 2)).toContainEqual(['/usr', '/usr']);
    expect(after(args, '--ro-bind', 2)).toContainEqual(['/etc', '/etc']);
    expect(after(args, '--bind', 2)).toEqual([['/tmp/.X11-unix/X5', '/tmp/.X11-unix/X0']]);
    const tmpfs = after(args, '--tmpfs').map(([dir]) => dir);
    expect(tmpfs).toEqual(['/dev/shm', '/tmp', '/home/user']);
    expect(after(args, '--size').map(([bytes]) => Number(bytes) / 1024 / 1024)).toEqual([64, 256, 256]);
    const setenv = Object.fromEntries(after(args, '--setenv', 2).map(([k, v]) => [k, v]));
    expect(setenv).toMatchObject({ DISPLAY: ':0', HOME: '/home/user', LANG: 'de_DE.UTF-8', USER: 'user' });
    // Nothing of the service's environment: only what is set here.
    expect(Object.keys(setenv).sort()).toEqual(
      ['DISPLAY', 'HOME', 'LANG', 'LOGNAME', 'PATH', 'SHELL', 'USER', 'XAUTHORITY', 'XDG_RUNTIME_DIR'].sort(),
    );
    // The data reaches bwrap on descriptors: the cookie among them, and the filter last.
    const cookieFd = Number(
      after(args, '--ro-bind-data', 2).find(([, dest]) => dest?.endsWith('.Xauthority'))?.[0],
    );
    expect(extra[cookieFd - 3]).toEqual(Buffer.from('cookie'));
    expect(extra[Number(after(args, '--seccomp')[0]?.[0]) - 3]).toEqual(spec.seccomp);
  });

  it('gives the network, the GPU and the catalog’s files only when asked, files read-only in /app', () => {
    const plain = sandboxLaunch(spec).args;
    expect(plain).not.toContain('--share-net');
    expect(plain).not.toContain('--dev-bind-try');
    expect(after(plain, '--chdir')).toEqual([['/home/user']]);
    folder = mkdtempSync(path.join(tmpdir(), 'streamgate-files-'));
    mkdirSync(path.join(folder, 'models'));
    const { args } = sandboxLaunch({
      ...spec,
      network: true,
      gpu: true,
      files: { root: folder, names: ['models'] },
    });
    expect(args).not.toContain('--unshare-net');
    expect(after(args, '--dev-bind-try', 2)).toEqual([['/dev/dri', '/dev/dri']]);
    // Staged by root in a mount namespace of the launch's own, then bound read-only by bwrap.
    const unshare = args.indexOf('unshare');
    expect(args.slice(unshare, unshare + 5)).toEqual([
      'unshare',
      '--mount',
      '--propagation',
      'private',
      '--',
    ]);
    expect(args.slice(unshare + 9, unshare + 12)).toEqual([path.join(folder, 'models'), 'models', '--']);
    expect(unshare).toBeLessThan(args.indexOf('setpriv'));
    expect(after(args, '--ro-bind', 2)).toContainEqual(['/run/streamgate-files/models', '/app/models']);
    expect(after(args, '--chdir')).toEqual([['/app']]);
  });

  it('binds the folder of its sound server only when it has one, after its private runtime folder', () => {
    expect(sandboxLaunch(spec).args).not.toContain(SANDBOX_SOUND_DIR);
    const { args } = sandboxLaunch({ ...spec, sound: '/tmp/streamgate-sound-x' });
    expect(after(args, '--bind', 2)).toContainEqual(['/tmp/streamgate-sound-x', SANDBOX_SOUND_DIR]);
    expect(args.indexOf('/tmp/streamgate-sound-x')).toBeGreaterThan(args.indexOf('--chmod'));
  });

  it('keeps the shell as the parent of a program the service starts itself', () => {
    expect(sandboxLaunch({ ...spec, keepParent: true }).args[1]).toMatch(/; "\$@"$/);
  });
});

describe('systemLayout', () => {
  it('links the top-level folders of a merged /usr and binds those of their own', () => {
    folder = mkdtempSync(path.join(tmpdir(), 'streamgate-root-'));
    symlinkSync('usr/bin', path.join(folder, 'bin'));
    mkdirSync(path.join(folder, 'lib64'));
    expect(systemLayout(folder)).toEqual([
      '--ro-bind',
      '/usr',
      '/usr',
      '--symlink',
      'usr/bin',
      '/bin',
      '--ro-bind',
      '/lib64',
      '/lib64',
    ]);
  });
});
