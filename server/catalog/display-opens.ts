/**
 * What a display program opens of a person's own files (catalog `launch.display.opens` and `open_command`): the
 * extensions of the files it reads, and how it is started with one. The display host restarts the program with
 * the file a person picks from the session's folder (`~/Files/<name>`) where the command says `{file}`.
 */
import type { Checker, Path } from './catalog-checker.ts';
import type { CatalogVersion } from './model.ts';

/** Where the person's file goes in an `open_command`. */
export const FILE_PLACEHOLDER = '{file}';
/** The most extensions one version may open. */
export const MAX_OPENS = 32;
const EXTENSION = /^[a-z0-9]{1,16}$/;

/** `opens: [extension, ...]`: lower case, no dot, each once, at most MAX_OPENS. */
export function checkOpens(c: Checker, value: unknown, path: Path): string[] {
  const list = c.list(value, path);
  if (list.length === 0) c.fail(path, '"opens" must name at least one extension, such as stl');
  if (list.length > MAX_OPENS) c.fail(path, `"opens" may name at most ${MAX_OPENS} extensions`);
  const seen = new Set<string>();
  list.forEach((extension, i) => {
    if (typeof extension !== 'string' || !EXTENSION.test(extension)) {
      const hint =
        typeof extension === 'string' && EXTENSION.test(extension.replace(/^\./, '').toLowerCase())
          ? `; write "${extension.replace(/^\./, '').toLowerCase()}"`
          : '';
      c.fail(
        [...path, i],
        `each extension must be 1 to 16 lower case letters or digits, without the dot, such as stl${hint}`,
      );
    }
    if (seen.has(extension)) c.fail([...path, i], `"${extension}" is named twice`);
    seen.add(extension);
  });
  return [...seen];
}

/**
 * `open_command: [program, args...]`: what opens a person's file, with `{file}` in exactly one of its arguments
 * (never the program: a person's file is never run).
 */
export function checkOpenCommand(c: Checker, value: unknown, path: Path): string[] {
  const command = c.list(value, path);
  if (command.length === 0) c.fail(path, '"open_command" must name a program');
  command.forEach((arg, i) => {
    if (typeof arg !== 'string') c.fail([...path, i], 'each command element must be text');
  });
  const holding = (command as string[]).flatMap((arg, i) => (arg.includes(FILE_PLACEHOLDER) ? [i] : []));
  if (holding.length !== 1) {
    c.fail(
      path,
      `"open_command" must hold ${FILE_PLACEHOLDER} in exactly one argument, where the person's file goes` +
        (holding.length > 1 ? ` (it is in ${holding.length})` : ''),
    );
  }
  if (holding[0] === 0)
    c.fail([...path, 0], `${FILE_PLACEHOLDER} cannot be the program: a person's file is opened, never run`);
  return command as string[];
}

/** The extensions a version opens, for the versions API; undefined when it opens none. */
export function versionOpens(version: CatalogVersion): string[] | undefined {
  const { launch } = version;
  return launch && 'display' in launch ? launch.display.opens : undefined;
}
