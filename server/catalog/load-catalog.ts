/**
 * Reads the catalog YAML (CONTRACT section 3) and checks it entirely before the service starts, so that a
 * mistake is reported once, as `file:line: problem`, rather than surfacing as odd answers later.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import nodePath from 'node:path';
import semver from 'semver';
import { isNode, LineCounter, parseDocument, type Document } from 'yaml';
import {
  DEFAULT_SETTINGS,
  IDENTIFIER,
  SEMVER,
  type Catalog,
  type CatalogApp,
  type CatalogProfile,
  type CatalogVersion,
  type CommandSpec,
  type LaunchSpec,
  type ProfileAttachment,
  type ProfileSettings,
} from './model.ts';
import { iconFile, iconProblem } from './icons.ts';
import { checkDeclarations, checkTemplates } from './launch-arguments.ts';
import { byNameThenId, compareVersionsDesc } from './queries.ts';

/** The catalog cannot be used; the message names the file, the line and the problem. */
export class CatalogError extends Error {
  override name = 'CatalogError';
}

type Path = (string | number)[];
type Obj = Record<string, unknown>;

class Checker {
  constructor(
    readonly file: string,
    private readonly doc: Document,
    private readonly lines: LineCounter,
    readonly checkFiles = false,
  ) {}

  /** The line of the deepest node that exists along `path` (a missing key is reported at its parent). */
  line(path: Path): number {
    for (let depth = path.length; depth >= 0; depth--) {
      const node: unknown = this.doc.getIn(path.slice(0, depth), true);
      if (isNode(node) && node.range) return this.lines.linePos(node.range[0]).line;
    }
    return 1;
  }

  fail(path: Path, problem: string): never {
    const where = path.length > 0 ? ` (${path.join('.')})` : '';
    throw new CatalogError(`${this.file}:${this.line(path)}: ${problem}${where}`);
  }

  object(value: unknown, path: Path, allowed: string[]): Obj {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      this.fail(path, 'expected a mapping');
    const obj = value as Obj;
    for (const key of Object.keys(obj)) {
      if (!allowed.includes(key))
        this.fail([...path, key], `unknown key "${key}"; expected one of ${allowed.join(', ')}`);
    }
    return obj;
  }

  list(value: unknown, path: Path): unknown[] {
    if (!Array.isArray(value)) this.fail(path, 'expected a list');
    return value;
  }

  text(obj: Obj, key: string, path: Path, optional = false): string {
    const value = obj[key];
    if (value === undefined && optional) return '';
    if (value === undefined) this.fail(path, `missing required key "${key}"`);
    if (typeof value !== 'string') this.fail([...path, key], `"${key}" must be text`);
    return value;
  }

  id(obj: Obj, key: string, path: Path, wildcard = false): string {
    const value = this.text(obj, key, path);
    if (!(wildcard && value === '*') && !IDENTIFIER.test(value)) {
      this.fail([...path, key], `"${value}" is not a valid id (letters, digits, ".", "_", "-"; at most 64)`);
    }
    return value;
  }

  integer(obj: Obj, key: string, path: Path, min: number, max: number, fallback: number): number {
    const value = obj[key];
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.fail([...path, key], `"${key}" must be a whole number from ${min} to ${max}`);
    }
    return value;
  }
}

function checkLaunch(c: Checker, value: unknown, path: Path): LaunchSpec {
  const obj = c.object(value, path, ['command', 'env', 'files', 'display']);
  if (obj.display === undefined) return checkCommand(c, obj, path);
  if (obj.command !== undefined || obj.env !== undefined || obj.files !== undefined) {
    c.fail(path, 'a launch has either "command" (and "env", "files") or "display", not both');
  }
  const keys = ['network', 'opengl'] as const;
  const display = c.object(obj.display, [...path, 'display'], ['command', 'env', 'files', ...keys]);
  const spec = checkCommand(c, display, [...path, 'display']);
  for (const key of keys) {
    const value = display[key];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') c.fail([...path, 'display', key], `"${key}" must be true or false`);
    spec[key] = value;
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

function checkApp(c: Checker, entry: unknown, path: Path): CatalogApp {
  const obj = c.object(entry, path, ['id', 'name', 'description', 'tags', 'icon', 'versions']);
  const icon = obj.icon === undefined ? undefined : c.text(obj, 'icon', path);
  const iconError = icon === undefined ? undefined : iconProblem(icon);
  if (iconError) c.fail([...path, 'icon'], iconError);
  // An icon file is served from beside the catalog: a catalog copied elsewhere without its icons is told at start.
  const file = icon && iconFile(icon, c.file);
  if (c.checkFiles && file && !existsSync(file)) {
    c.fail(
      [...path, 'icon'],
      `icon file "${icon}" is not beside the catalog (${file}): copy it there, or give an http(s) URL`,
    );
  }
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
    versions: checkVersions(c, obj.versions, [...path, 'versions']),
  };
}

function checkSettings(c: Checker, value: unknown, path: Path): ProfileSettings {
  if (value === undefined) return { ...DEFAULT_SETTINGS };
  const keys = ['width', 'height', 'fps', 'max_width', 'max_height', 'startup_timeout_s', 'max_lifetime_min'];
  const obj = c.object(value, path, [
    ...keys,
    ...['idle_timeout_min', 'max_viewers', 'warm', 'codec', 'gpus', 'limits'],
  ]);
  const d = DEFAULT_SETTINGS;
  const width = c.integer(obj, 'width', path, 16, 7680, d.width);
  const height = c.integer(obj, 'height', path, 16, 4320, d.height);
  const settings: ProfileSettings = {
    width,
    height,
    fps: c.integer(obj, 'fps', path, 1, 240, d.fps),
    maxWidth: c.integer(obj, 'max_width', path, width, 7680, Math.max(d.maxWidth, width)),
    maxHeight: c.integer(obj, 'max_height', path, height, 4320, Math.max(d.maxHeight, height)),
    startupTimeoutMs: c.integer(obj, 'startup_timeout_s', path, 1, 3600, d.startupTimeoutMs / 1000) * 1000,
    maxLifetimeMs: c.integer(obj, 'max_lifetime_min', path, 1, 10_080, d.maxLifetimeMs / 60_000) * 60_000,
    idleTimeoutMs: c.integer(obj, 'idle_timeout_min', path, 1, 1440, d.idleTimeoutMs / 60_000) * 60_000,
    maxViewers: c.integer(obj, 'max_viewers', path, 1, 1000, d.maxViewers),
    warm: c.integer(obj, 'warm', path, 0, 16, d.warm),
    gpus: c.integer(obj, 'gpus', path, 0, 16, d.gpus),
    limits: checkLimits(c, obj.limits, [...path, 'limits']),
  };
  if (obj.codec !== undefined) {
    if (obj.codec !== 'vp8' && obj.codec !== 'h264')
      c.fail([...path, 'codec'], '"codec" must be vp8 or h264');
    settings.codec = obj.codec;
  }
  return settings;
}

/** `limits: {cpus, memory_mb, pids}`, each optional (CONTRACT §17 defaults). */
function checkLimits(c: Checker, value: unknown, path: Path): ProfileSettings['limits'] {
  const d = DEFAULT_SETTINGS.limits;
  if (value === undefined) return { ...d };
  const obj = c.object(value, path, ['cpus', 'memory_mb', 'pids']);
  const cpus = obj.cpus ?? d.cpus;
  if (typeof cpus !== 'number' || !(cpus >= 0.01 && cpus <= 256))
    c.fail([...path, 'cpus'], '"cpus" must be a number of cores from 0.01 to 256');
  return {
    cpus,
    memoryMb: c.integer(obj, 'memory_mb', path, 16, 1_048_576, d.memoryMb),
    pids: c.integer(obj, 'pids', path, 8, 1_000_000, d.pids),
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
