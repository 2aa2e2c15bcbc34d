/**
 * The control-group layout on both hierarchies, against folders that stand in for /sys/fs/cgroup (the kernel's
 * own behaviour, limits that bite, is tested with real programs in reliability/sandbox.test.ts).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  findHierarchy,
  joinCommand,
  oomKillsIn,
  SessionCgroup,
  sessionGroups,
  weighSession,
} from './cgroups.ts';

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

const SESSION = '0b7c9a52-7f5e-4c1e-9d2a-3f4e5a6b7c8d';
const LIMITS = { cpus: 1.5, memoryMb: 512, pids: 64 };

/** A v2 tree: one mount with its controllers listed, the service in `/service.slice/sg.service`. */
function v2Tree(): string {
  root = mkdtempSync(path.join(tmpdir(), 'streamgate-cgroup-'));
  writeFileSync(path.join(root, 'cgroup.controllers'), 'cpuset cpu io memory pids\n');
  mkdirSync(path.join(root, 'service.slice/sg.service'), { recursive: true });
  return root;
}

/** A v1 tree: one mount per controller. */
function v1Tree(): string {
  root = mkdtempSync(path.join(tmpdir(), 'streamgate-cgroup-'));
  for (const controller of ['memory', 'cpu', 'pids']) {
    mkdirSync(path.join(root, controller), { recursive: true });
    writeFileSync(path.join(root, controller, 'cgroup.procs'), '');
  }
  return root;
}

describe('findHierarchy', () => {
  it("puts sessions under the service's own v2 group", () => {
    const tree = v2Tree();
    expect(findHierarchy(tree, '0::/service.slice/sg.service\n')).toEqual({
      version: 2,
      bases: [path.join(tree, 'service.slice/sg.service/streamgate')],
    });
  });

  it('says which controller a v2 tree lacks', () => {
    const tree = v2Tree();
    writeFileSync(path.join(tree, 'cgroup.controllers'), 'cpu io\n');
    expect(findHierarchy(tree, '0::/\n')).toMatch(/lack the memory and pids controller/);
  });

  it("uses each v1 controller's own mount, and the mount itself where the service's path is not under it", () => {
    const tree = v1Tree();
    mkdirSync(path.join(tree, 'memory/box/7'), { recursive: true });
    const self = '9:name=systemd:/\n8:pids:/\n4:memory:/box/7\n2:cpu,cpuacct:/elsewhere\n';
    expect(findHierarchy(tree, self)).toEqual({
      version: 1,
      bases: [
        path.join(tree, 'memory/box/7/streamgate'),
        path.join(tree, 'cpu/streamgate'),
        path.join(tree, 'pids/streamgate'),
      ],
    });
  });

  it('says which v1 controller is missing', () => {
    const tree = v1Tree();
    rmSync(path.join(tree, 'pids'), { recursive: true });
    expect(findHierarchy(tree, '')).toMatch(/lack the pids controller/);
  });
});

describe('SessionCgroup', () => {
  it('gives the program v1 limits in each controller, the application none', () => {
    const tree = v1Tree();
    const hierarchy = findHierarchy(tree, '');
    if (typeof hierarchy === 'string') throw new Error(hierarchy);
    const group = new SessionCgroup(hierarchy, SESSION);
    // Files the kernel would have made in each new group.
    for (const controller of ['memory', 'cpu', 'pids']) {
      const files = {
        memory: ['memory.limit_in_bytes'],
        cpu: ['cpu.cfs_period_us', 'cpu.cfs_quota_us'],
        pids: ['pids.max'],
      }[controller] as string[];
      for (const part of ['app', 'program']) {
        const dir = path.join(tree, controller, 'streamgate', SESSION, part);
        mkdirSync(dir, { recursive: true });
        for (const file of files) writeFileSync(path.join(dir, file), 'max');
      }
    }
    group.create(LIMITS);
    const read = (controller: string, part: string, file: string) =>
      readFileSync(path.join(tree, controller, 'streamgate', SESSION, part, file), 'utf8');
    expect(read('memory', 'program', 'memory.limit_in_bytes')).toBe(String(512 * 1024 * 1024));
    expect(read('cpu', 'program', 'cpu.cfs_quota_us')).toBe('150000');
    expect(read('cpu', 'program', 'cpu.cfs_period_us')).toBe('100000');
    expect(read('pids', 'program', 'pids.max')).toBe('64');
    expect(read('pids', 'app', 'pids.max')).toBe('max');
    expect(group.dirs('app')).toHaveLength(3);
    expect(sessionGroups(hierarchy)).toEqual([SESSION]);
  });

  it('enables the v2 controllers down to the session, moving the service out of a group that must delegate', () => {
    const tree = v2Tree();
    const service = path.join(tree, 'service.slice/sg.service');
    writeFileSync(path.join(service, 'cgroup.procs'), '4242\n');
    // The kernel refuses +memory in a group that holds processes; this stand-in takes any write.
    const hierarchy = findHierarchy(tree, '0::/service.slice/sg.service\n');
    if (typeof hierarchy === 'string') throw new Error(hierarchy);
    const group = new SessionCgroup(hierarchy, SESSION);
    const sessionDir = path.join(service, 'streamgate', SESSION);
    mkdirSync(path.join(sessionDir, 'program'), { recursive: true });
    for (const file of ['memory.max', 'cpu.max', 'pids.max'])
      writeFileSync(path.join(sessionDir, 'program', file), 'max');
    group.create(LIMITS);
    expect(readFileSync(path.join(service, 'cgroup.subtree_control'), 'utf8')).toBe('+memory +cpu +pids');
    expect(readFileSync(path.join(sessionDir, 'cgroup.subtree_control'), 'utf8')).toBe('+memory +cpu +pids');
    expect(readFileSync(path.join(sessionDir, 'program/memory.max'), 'utf8')).toBe(String(512 * 1024 * 1024));
    expect(readFileSync(path.join(sessionDir, 'program/cpu.max'), 'utf8')).toBe('150000 100000');
    expect(readFileSync(path.join(sessionDir, 'program/pids.max'), 'utf8')).toBe('64');
    expect(group.dirs('program')).toEqual([path.join(sessionDir, 'program')]);
  });

  it('counts the kernel’s kills for memory in either format', () => {
    root = mkdtempSync(path.join(tmpdir(), 'streamgate-cgroup-'));
    const v1 = path.join(root, 'v1');
    const v2 = path.join(root, 'v2');
    mkdirSync(v1);
    mkdirSync(v2);
    writeFileSync(path.join(v1, 'memory.oom_control'), 'oom_kill_disable 0\nunder_oom 0\noom_kill 2\n');
    writeFileSync(path.join(v2, 'memory.events'), 'low 0\nhigh 0\nmax 9\noom 1\noom_kill 1\n');
    expect(oomKillsIn([path.join(root, 'none'), v1])).toBe(2);
    expect(oomKillsIn([v2])).toBe(1);
    expect(oomKillsIn([root])).toBe(0);
  });
});

describe('weighSession', () => {
  it("sets the v1 session's cpu.shares, in the cpu tree only, from its program folders", () => {
    const tree = v1Tree();
    const programs = ['memory', 'cpu', 'pids'].map((c) =>
      path.join(tree, c, 'streamgate', SESSION, 'program'),
    );
    for (const dir of programs) mkdirSync(dir, { recursive: true });
    // The kernel's default, in the only tree that has the file.
    const shares = path.join(tree, 'cpu', 'streamgate', SESSION, 'cpu.shares');
    writeFileSync(shares, '1024');
    weighSession(programs, 8);
    expect(readFileSync(shares, 'utf8')).toBe('8192');
    weighSession(programs, 1);
    expect(readFileSync(shares, 'utf8')).toBe('1024');
    expect(existsSync(path.join(tree, 'memory', 'streamgate', SESSION, 'cpu.shares'))).toBe(false);
  });

  it("sets the v2 session's cpu.weight, and leaves alone a session whose groups are gone", () => {
    const tree = v2Tree();
    const session = path.join(tree, 'service.slice/sg.service/streamgate', SESSION);
    mkdirSync(path.join(session, 'program'), { recursive: true });
    writeFileSync(path.join(session, 'cpu.weight'), '100');
    weighSession([path.join(session, 'program')], 8);
    expect(readFileSync(path.join(session, 'cpu.weight'), 'utf8')).toBe('800');
    expect(() => weighSession([path.join(tree, 'gone', SESSION, 'program')], 8)).not.toThrow();
  });
});

describe('joinCommand', () => {
  it('joins every group before the command runs, and fails rather than run outside one', () => {
    const [file, args] = joinCommand(['/a', '/b c'], ['xterm', '-e', 'bash']);
    expect(file).toBe('/bin/sh');
    expect(args.slice(2)).toEqual(['sh', '/a', '/b c', '--', 'xterm', '-e', 'bash']);
    expect(args[1]).toContain('|| exit 125');
    expect(args[1]).toMatch(/exec "\$@"$/);
    expect(joinCommand([], ['x'], true)[1][1]).toMatch(/; "\$@"$/);
  });
});
