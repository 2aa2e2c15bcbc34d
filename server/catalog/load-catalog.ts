/**
 * Reads the catalog YAML (CONTRACT section 3) and checks it entirely before the service starts, so that a
 * mistake is reported once, as `file:line: problem`, rather than surfacing as odd answers later.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import nodePath from 'node:path';
import semver from 'semver';
import { LineCounter, parseDocument } from 'yaml';
import {
  SEMVER,
  type Catalog,
  type CatalogApp,
  type CatalogProfile,
  type CatalogVersion,
  type CommandSpec,
  type LaunchSpec,
  type ProfileAttachment,
} from './model.ts';
import { CatalogError, Checker, type Obj, type Path } from './catalog-checker.ts';
import { IMAGE_KEYS, imageFile, imageProblem, type ImageKey } from './images.ts';
import { checkOpenCommand, checkOpens } from './display-opens.ts';
import { checkSettings } from './profile-settings.ts';
import { checkDeclarations, checkTemplates } from './launch-arguments.ts';
import { byNameThenId, compareVersionsDesc } from './queries.ts';

export { CatalogError };

function checkLaunch(c: Checker, value: unknown, path: Path): LaunchSpec {
  const obj = c.object(value, path, ['command', 'env', 'files', 'display']);
  if (obj.display === undefined) return checkCommand(c, obj, path);
  if (obj.command !== undefined || obj.env !== undefined || obj.files !== undefined) {
    c.fail(path, 'a launch has either "command" (and "env", "files") or "display", not both');
  }
  const keys = ['network', 'opengl'] as const;
  const at = [...path, 'display'];
  const display = c.object(obj.display, at, ['command', 'env', 'files', ...keys, 'opens', 'open_command']);
  const spec = checkCommand(c, display, at);
  for (const key of keys) {
    const value = display[key];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') c.fail([...at, key], `"${key}" must be true or false`);
    spec[key] = value;
  }
  if (display.opens !== undefined) spec.opens = checkOpens(c, display.opens, [...at, 'opens']);
  if (display.open_command !== undefined) {
    if (spec.opens === undefined)
      c.fail([...at, 'open_command'], '"open_command" needs "opens": the extensions of the files it opens');
    spec.openCommand = checkOpenCommand(c, display.open_command, [...at, 'open_command']);
  }
  return { display: spec };
}

/**
 * `files`: paths relative to the catalog file's folder, inside it (no `..`, not absolute), that exist when
 * the catalog is read from a file.
 */
function checkFiles(c: Checker, value: unknown, path: Path): { root: string; names: string[] } {
  const root = nodePath.dirname(nodePath.resolve(c.file));
  const names = c.list(value, path).map((name, i) => {
    const normal = typeof name === 'string' ? nodePath.posix.normalize(name).replace(/\/$/, '') : '';
    if (typeof name !== 'string' || name === '' || nodePath.isAbsolute(name) || normal.startsWith('..'))
      c.fail([...path, i], "each file must be a path inside the catalog's folder, such as models");
    if (c.checkFiles && !existsSync(nodePath.join(root, normal)))
      c.fail([...path, i], `"${name}" does not exist beside the catalog (${root})`);
    return normal;
  });
  return { root, names };
}

function checkCommand(c: Checker, obj: Record<string, unknown>, path: Path): CommandSpec {
  const command = c.list(obj.command, [...path, 'command']);
  if (command.length === 0) c.fail([...path, 'command'], '"command" must name a program');
  command.forEach((arg, i) => {
    if (typeof arg !== 'string') c.fail([...path, 'command', i], 'each command element must be text');
  });
  const launch: CommandSpec = { command: command as string[] };
  if (obj.env !== undefined) {
    const raw = obj.env;
    const env = c.object(
      raw,
      [...path, 'env'],
      typeof raw === 'object' && raw !== null ? Object.keys(raw) : [],
    );
    for (const [key, v] of Object.entries(env)) {
      if (typeof v !== 'string') c.fail([...path, 'env', key], `env "${key}" must be text (quote numbers)`);
    }
    launch.env = env as Record<string, string>;
  }
  if (obj.files !== undefined) launch.files = checkFiles(c, obj.files, [...path, 'files']);
  return launch;
}

function checkVersions(c: Checker, value: unknown, path: Path): CatalogVersion[] {
  const entries = c.list(value, path);
  if (entries.length === 0) c.fail(path, 'an application needs at least one version');
  const versions = entries.map((entry, i): CatalogVersion => {
    const at = [...path, i];
    const obj = c.object(entry, at, ['version', 'description', 'launch', 'arguments']);
    // YAML reads 1.2 or 1 as numbers; ask for quotes rather than guessing what was meant.
    if (typeof obj.version === 'number')
      c.fail([...at, 'version'], 'write the version as text, e.g. "1.2.0"');
    const version = c.text(obj, 'version', at);
    if (!SEMVER.test(version))
      c.fail([...at, 'version'], `"${version}" is not SemVer (MAJOR.MINOR.PATCH[-PRE][+BUILD])`);
    const result: CatalogVersion = { version, description: c.text(obj, 'description', at, true) };
    if (obj.launch !== undefined) result.launch = checkLaunch(c, obj.launch, [...at, 'launch']);
    if (obj.arguments !== undefined) {
      const declared = checkDeclarations(c, obj.arguments, [...at, 'arguments']);
      result.arguments = declared;
      const { launch } = result;
      if (launch) {
        const display = 'display' in launch;
        const command = display ? launch.display.command : launch.command;
        checkTemplates(c, command, declared, [...at, 'launch', ...(display ? ['display'] : []), 'command']);
        const open = display ? launch.display.openCommand : undefined;
        if (open) checkTemplates(c, open, declared, [...at, 'launch', 'display', 'open_command']);
      }
    }
    return result;
  });
  versions.forEach((v, i) => {
    const twin = versions.findIndex((other) => semver.compare(other.version, v.version) === 0);
    if (twin !== i) {
      c.fail(
        [...path, i, 'version'],
        `version "${v.version}" has the same precedence as "${versions[twin]?.version}"`,
      );
    }
  });
  return versions.sort(compareVersionsDesc);
}

/** An application's `icon` or `picture`, checked: its form, and its file beside the catalog. */
function checkImage(c: Checker, obj: Obj, key: ImageKey, path: Path): string | undefined {
  if (obj[key] === undefined) return undefined;
  const value = c.text(obj, key, path);
  const problem = imageProblem(key, value);
  if (problem) c.fail([...path, key], problem);
  // An image file is served from beside the catalog: a catalog copied elsewhere without it is told at start.
  const file = imageFile(value, c.file);
  if (c.checkFiles && file && !existsSync(file)) {
    c.fail(
      [...path, key],
      `${key} file "${value}" is not beside the catalog (${file}): copy it there, or give an http(s) URL`,
    );
  }
  return value;
}

function checkApp(c: Checker, entry: unknown, path: Path): CatalogApp {
  const obj = c.object(entry, path, ['id', 'name', 'description', 'tags', ...IMAGE_KEYS, 'versions']);
  const icon = checkImage(c, obj, 'icon', path);
  const picture = checkImage(c, obj, 'picture', path);
  const tags = c.list(obj.tags ?? [], [...path, 'tags']);
  tags.forEach((tag, i) => {
    if (typeof tag !== 'string' || tag === '' || tag.includes(',')) {
      c.fail([...path, 'tags', i], 'a tag must be non-empty text without commas');
    }
  });
  if (obj.versions === undefined) c.fail(path, 'missing required key "versions"');
  return {
    id: c.id(obj, 'id', path),
    name: c.text(obj, 'name', path),
    description: c.text(obj, 'description', path, true),
    tags: tags as string[],
    ...(icon === undefined ? {} : { icon }),
    ...(picture === undefined ? {} : { picture }),
    versions: checkVersions(c, obj.versions, [...path, 'versions']),
  };
}

function checkProfile(c: Checker, entry: unknown, path: Path, apps: CatalogApp[]): CatalogProfile {
  const obj = c.object(entry, path, ['id', 'name', 'description', 'applications', 'settings']);
  if (obj.applications === undefined) c.fail(path, 'missing required key "applications"');
  const attachments = c
    .list(obj.applications, [...path, 'applications'])
    .map((item, i): ProfileAttachment => {
      const at = [...path, 'applications', i];
      const a = c.object(item, at, ['id', 'versions']);
      const id = c.id(a, 'id', at, true);
      const app = apps.find((candidate) => candidate.id === id);
      if (id !== '*' && !app) c.fail([...at, 'id'], `no application has id "${id}"`);
      const versions = c.list(a.versions ?? ['*'], [...at, 'versions']).map((v, j) => {
        if (typeof v !== 'string' || (v !== '*' && !SEMVER.test(v))) {
          c.fail([...at, 'versions', j], 'each version must be "*" or a SemVer text');
        }
        if (app && v !== '*' && !app.versions.some((known) => known.version === v)) {
          c.fail([...at, 'versions', j], `application "${id}" has no version "${v}"`);
        }
        return v;
      });
      return { id, versions };
    });
  return {
    id: c.id(obj, 'id', path),
    name: c.text(obj, 'name', path),
    description: c.text(obj, 'description', path, true),
    settings: checkSettings(c, obj.settings, [...path, 'settings']),
    attachments,
  };
}

function firstDuplicate(ids: string[]): number {
  return ids.findIndex((id, i) => ids.indexOf(id) !== i);
}

/**
 * Parses and checks catalog text; `file` names it in messages and its folder is where `files` are found,
 * which are checked to exist only when `checkFiles` is set (the catalog was read from that file).
 */
export function parseCatalog(text: string, file: string, checkFiles = false): Catalog {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const yamlError = doc.errors[0];
  if (yamlError) {
    const line = yamlError.linePos?.[0]?.line ?? 1;
    throw new CatalogError(`${file}:${line}: not valid YAML: ${yamlError.message.split('\n')[0]}`);
  }
  const c = new Checker(file, doc, lines, checkFiles);
  const root = c.object(doc.toJS() ?? {}, [], ['applications', 'profiles']);
  if (root.applications === undefined) c.fail([], 'missing required key "applications"');
  if (root.profiles === undefined) c.fail([], 'missing required key "profiles"');
  const apps = c.list(root.applications, ['applications']).map((a, i) => checkApp(c, a, ['applications', i]));
  const dupApp = firstDuplicate(apps.map((a) => a.id));
  if (dupApp >= 0) c.fail(['applications', dupApp, 'id'], `duplicate application id "${apps[dupApp]?.id}"`);
  const profiles = c
    .list(root.profiles, ['profiles'])
    .map((p, i) => checkProfile(c, p, ['profiles', i], apps));
  const dupProfile = firstDuplicate(profiles.map((p) => p.id));
  if (dupProfile >= 0)
    c.fail(['profiles', dupProfile, 'id'], `duplicate profile id "${profiles[dupProfile]?.id}"`);
  return { apps: apps.sort(byNameThenId), profiles: profiles.sort(byNameThenId) };
}

/** Reads and checks the catalog file; throws CatalogError naming the file and line. */
export async function loadCatalog(file: string): Promise<Catalog> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new CatalogError(`${file}: cannot read the catalog (${code}); set STREAMGATE_CATALOG to its path.`);
  }
  return parseCatalog(text, file, true);
}
