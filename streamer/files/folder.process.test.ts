/**
 * A session's folder as root keeps it, against what its program may leave there: links to /etc/passwd and out
 * of the folder, a FIFO, a folder swapped for a link, a program that writes past the limit. Real folders, a real
 * 1 MB tmpfs and real processes of the session's user (setpriv), as on a display host.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { fromBufferPromise } from 'yauzl';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PARTIAL_PREFIX } from '../../protocol/files.ts';
import { sessionUid } from '../../sandbox/bwrap.ts';
import { until } from '../../test-support/until.ts';
import { FilesError, type FilesFolder } from './folder.ts';
import { makeSessionFolder } from './place.ts';
import { FILES_DIR_PREFIX, sweepStaleFilesFolders } from '../../sandbox/leftovers.ts';

/** The session's host user of these tests (a port no test listens on). */
const UID = sessionUid(65_431);
const PASSWD = readFileSync('/etc/passwd');

/** Runs `script` as the session's user, as its program would. */
function asSession(script: string): void {
  execFileSync('setpriv', [`--reuid=${UID}`, `--regid=${UID}`, '--clear-groups', 'sh', '-c', script], {
    stdio: 'ignore',
  });
}

/** The zip's files by path, with their bytes. */
async function unzipped(stream: Readable): Promise<Map<string, Buffer>> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  const zip = await fromBufferPromise(Buffer.concat(chunks));
  const files = new Map<string, Buffer>();
  for await (const entry of zip.eachEntry()) {
    if (entry.fileName.endsWith('/')) continue;
    const body = await zip.openReadStreamPromise(entry);
    const parts: Buffer[] = [];
    for await (const part of body) parts.push(part as Buffer);
    files.set(entry.fileName, Buffer.concat(parts));
  }
  return files;
}

const body = (bytes: Buffer | string) => Readable.from([Buffer.from(bytes)]);

/** What the upload was refused with. */
async function refusal(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof FilesError) return error.status;
    throw error;
  }
  throw new Error('it was not refused');
}

describe('a session folder kept by root, 1 MB', () => {
  let folder: FilesFolder;
  let root: string;
  let lines: string[];

  beforeEach(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'files-test-'));
    // The session's user reaches its folder as it would in the system's temporary folder.
    chmodSync(root, 0o755);
    lines = [];
    folder = await makeSessionFolder({ filesMb: 1, owner: UID, log: (line) => lines.push(line), root });
  });

  afterEach(async () => {
    await folder.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('is a tmpfs of the session user, said so in one line, and gone with its mount when closed', async () => {
    expect(lines).toEqual(['files: a 1 MB tmpfs for the session, bounded by the kernel']);
    expect(folder.bounded).toBe(true);
    const info = statSync(folder.dir);
    expect([info.uid, info.mode & 0o777]).toEqual([UID, 0o700]);
    expect(readFileSync('/proc/self/mounts', 'utf8')).toContain(` ${folder.dir} tmpfs `);
    const dir = folder.dir;
    await folder.close();
    expect(readFileSync('/proc/self/mounts', 'utf8')).not.toContain(` ${dir} `);
    expect(existsSync(dir)).toBe(false);
  });

  it('holds its limit against the program itself: the kernel stops a write past 1 MB', () => {
    expect(() => asSession(`dd if=/dev/zero of=${folder.dir}/big bs=64K count=32`)).toThrow();
    expect(statSync(path.join(folder.dir, 'big')).size).toBeLessThanOrEqual(1024 * 1024);
  });

  it('never reads nor writes through links the program planted, to /etc/passwd or out of the folder', async () => {
    asSession(
      `ln -s /etc/passwd ${folder.dir}/passwd && ln -s ../../ ${folder.dir}/up && mkdir ${folder.dir}/sub`,
    );
    asSession(`ln -s /etc/passwd ${folder.dir}/sub/deep`);
    // Listed as files of size 0, never followed for a size.
    const listing = await folder.list();
    expect(listing.items.filter((item) => item.name !== 'sub')).toEqual([
      expect.objectContaining({ name: 'passwd', size: 0, kind: 'file' }),
      expect.objectContaining({ name: 'up', size: 0, kind: 'file' }),
    ]);
    // Not downloaded.
    expect(await refusal(folder.download('passwd'))).toBe(404);
    expect(await refusal(folder.download('up'))).toBe(404);
    // Not in the zip, nor what they point to.
    const zipped = await unzipped(await folder.zip());
    expect([...zipped.keys()]).toEqual([]);
    // An upload over one replaces the link, and /etc/passwd is as it was.
    const entry = await folder.upload('passwd', body('mine'), 4);
    expect(entry).toMatchObject({ name: 'passwd', size: 4, kind: 'file' });
    expect(readFileSync('/etc/passwd')).toEqual(PASSWD);
    expect(lstatSync(path.join(folder.dir, 'passwd')).isFile()).toBe(true);
    // Removing one removes the link, not the folder two levels up.
    await folder.remove('up');
    expect(existsSync(path.join(folder.dir, 'up'))).toBe(false);
    expect(existsSync(root)).toBe(true);
    expect(readFileSync('/etc/passwd')).toEqual(PASSWD);
  });

  it('gives the program what is uploaded, under its name only once complete', async () => {
    await folder.upload('notes.txt', body('hello'), 5);
    const info = statSync(path.join(folder.dir, 'notes.txt'));
    expect([info.uid, info.gid]).toEqual([UID, UID]);
    asSession(`echo more >> ${folder.dir}/notes.txt`);
    expect(readFileSync(path.join(folder.dir, 'notes.txt'), 'utf8')).toBe('hellomore\n');
  });

  it('does not hang on a FIFO: not downloaded, left out of the zip', async () => {
    asSession(`mkfifo ${folder.dir}/pipe && printf abc > ${folder.dir}/real`);
    expect(await refusal(folder.download('pipe'))).toBe(404);
    const zipped = await unzipped(await folder.zip());
    expect([...zipped.entries()]).toEqual([['real', Buffer.from('abc')]]);
  });

  it('zips the whole tree with the right bytes, and what the walk found swapped for a link is never followed', async () => {
    const outside = mkdtempSync(path.join(root, 'outside-'));
    writeFileSync(path.join(outside, 'secret.txt'), 'OUTSIDE');
    asSession(
      `mkdir -p ${folder.dir}/sub/deeper && printf one > ${folder.dir}/a.txt && ` +
        `printf two > ${folder.dir}/sub/secret.txt && printf three > ${folder.dir}/sub/deeper/c.bin`,
    );
    expect(await unzipped(await folder.zip())).toEqual(
      new Map([
        ['a.txt', Buffer.from('one')],
        ['sub/deeper/c.bin', Buffer.from('three')],
        ['sub/secret.txt', Buffer.from('two')],
      ]),
    );
    // The archive is walked first and read later: the program swaps `sub` for a link in between.
    const zip = await folder.zip();
    renameSync(path.join(folder.dir, 'sub'), path.join(folder.dir, 'moved'));
    symlinkSync(outside, path.join(folder.dir, 'sub'));
    const zipped = await unzipped(zip);
    expect(zipped.get('sub/secret.txt')).toEqual(Buffer.alloc(0));
    expect([...zipped.values()].some((bytes) => bytes.toString() === 'OUTSIDE')).toBe(false);
  });

  it('refuses a file larger than the folder (413), one that does not fit (507), and leaves nothing of either', async () => {
    expect(await refusal(folder.upload('big', body(Buffer.alloc(2 * 1024 * 1024)), 2 * 1024 * 1024))).toBe(
      413,
    );
    await folder.upload('first', body(Buffer.alloc(600 * 1024)), 600 * 1024);
    const second = folder.upload('second', body(Buffer.alloc(600 * 1024)), 600 * 1024);
    await expect(second).rejects.toThrow(/does not fit: .* is left in the session's folder/);
    expect(await refusal(second)).toBe(507);
    expect(readdirSync(folder.dir)).toEqual(['first']);
  });

  it('undoes an upload whose body is cut half way, or shorter or longer than it said', async () => {
    const cut = new Readable({ read() {} });
    const upload = folder.upload('cut', cut, 100_000);
    cut.push(Buffer.alloc(50_000));
    await until('the half to be written', () =>
      readdirSync(folder.dir).some((name) => name.startsWith(PARTIAL_PREFIX)),
    );
    // The partial upload is hidden meanwhile.
    expect((await folder.list()).items).toEqual([]);
    cut.destroy(new Error('connection reset'));
    await expect(upload).rejects.toThrow('connection reset');
    expect(await refusal(folder.upload('short', body('abc'), 4))).toBe(400);
    expect(await refusal(folder.upload('long', body('abcde'), 4))).toBe(400);
    expect(readdirSync(folder.dir)).toEqual([]);
  });

  it('answers 507, and keeps nothing, when the program fills the folder during an upload', async () => {
    const slow = new Readable({ read() {} });
    const upload = folder.upload('late', slow, 500 * 1024);
    slow.push(Buffer.alloc(10 * 1024));
    // The program takes what the upload was counting on (its own writes are not the service's to refuse).
    asSession(`dd if=/dev/zero of=${folder.dir}/hog bs=64K count=14 2>/dev/null`);
    slow.push(Buffer.alloc(490 * 1024));
    slow.push(null);
    expect(await refusal(upload)).toBe(507);
    expect(readdirSync(folder.dir)).toEqual(['hog']);
  });

  it('refuses names that are not one plain file name, in words', async () => {
    await expect(folder.upload('../escape', body('x'), 1)).rejects.toThrow(/cannot hold “\/”/);
    expect(await refusal(folder.download('..'))).toBe(422);
    expect(await refusal(folder.remove(`${PARTIAL_PREFIX}abc`))).toBe(422);
  });

  it('removes a file (204 at the route), refuses a folder (409) and a missing name (404)', async () => {
    asSession(`mkdir ${folder.dir}/made && printf x > ${folder.dir}/f`);
    await folder.remove('f');
    expect(existsSync(path.join(folder.dir, 'f'))).toBe(false);
    expect(await refusal(folder.remove('made'))).toBe(409);
    expect(await refusal(folder.remove('f'))).toBe(404);
  });

  it('tells what the files take when another process writes there, the burst coalesced', async () => {
    const told: number[] = [];
    const stop = folder.watch((used) => told.push(used));
    try {
      asSession(`for i in 1 2 3 4 5; do printf 0123456789 >> ${folder.dir}/log; done`);
      await until('the change to be told', () => told.length > 0);
      expect(told.at(-1)).toBeGreaterThan(0);
      expect(told.length).toBeLessThan(5);
    } finally {
      stop();
    }
  });
});

describe('a session folder where mounting is not possible', () => {
  it('is a plain folder whose uploads keep the limit, and the sample application keeps one of its own', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'files-test-'));
    const lines: string[] = [];
    const folder = await makeSessionFolder({
      filesMb: 1,
      owner: null,
      log: (line) => lines.push(line),
      root,
    });
    try {
      expect(folder.bounded).toBe(false);
      expect(lines).toEqual([
        'files: a plain folder of 1 MB for the session, its limit kept on uploads only',
      ]);
      await folder.upload('a', body(Buffer.alloc(700 * 1024)), 700 * 1024);
      expect(await refusal(folder.upload('b', body(Buffer.alloc(400 * 1024)), 400 * 1024))).toBe(507);
      expect((await folder.list()).used_bytes).toBe(700 * 1024);
      // Two at once that fit one by one but not together: the second counts what the first will write.
      await folder.remove('a');
      const both = await Promise.allSettled([
        folder.upload('c', body(Buffer.alloc(600 * 1024)), 600 * 1024),
        folder.upload('d', body(Buffer.alloc(600 * 1024)), 600 * 1024),
      ]);
      expect(both.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect((await folder.list()).used_bytes).toBe(600 * 1024);
    } finally {
      await folder.close();
    }
    expect(readdirSync(root)).toEqual([]);
    rmSync(root, { recursive: true, force: true });
  });
});

describe('the sweep of what hosts killed outright left', () => {
  it('unmounts and removes the folders of hosts that are gone, and leaves a live host its own', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'files-test-'));
    const gone = path.join(root, `${FILES_DIR_PREFIX}999999-abc`);
    const live = path.join(root, `${FILES_DIR_PREFIX}${process.pid}-abc`);
    mkdirSync(gone);
    mkdirSync(live);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'streamgate-files', gone]);
    writeFileSync(path.join(gone, 'left'), 'x');
    try {
      expect(sweepStaleFilesFolders((pid) => pid === process.pid, root)).toEqual([gone]);
      expect(readFileSync('/proc/self/mounts', 'utf8')).not.toContain(` ${gone} `);
      expect(readdirSync(root)).toEqual([path.basename(live)]);
    } finally {
      spawn('umount', [gone], { stdio: 'ignore' });
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('a download of a file', () => {
  it('streams its bytes', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'files-test-'));
    const folder = await makeSessionFolder({ filesMb: 1, owner: UID, log: () => undefined, root });
    try {
      await folder.upload('hello.txt', body('hello'), 5);
      const { handle, size } = await folder.download('hello.txt');
      expect(size).toBe(5);
      expect(await text(handle.createReadStream())).toBe('hello');
    } finally {
      await folder.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
