/**
 * Lookups over a loaded catalog: tag filtering (CONTRACT 8), version order and `latest` (CONTRACT 7),
 * which profiles apply to an (application, version) pair, wildcards included (CONTRACT 9), and what a
 * launch names (CONTRACT 5).
 */
import semver from 'semver';
import { ValidationFailure } from '../errors.ts';
import { checkDeclaredArguments } from './launch-arguments.ts';
import type { Catalog, CatalogApp, CatalogProfile, CatalogVersion, LaunchTarget } from './model.ts';

/** Name, then id, by code point so that the order does not depend on the machine's locale. */
export function byNameThenId(a: { name: string; id: string }, b: { name: string; id: string }): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return 0;
}

/** Newest first by SemVer precedence; build metadata does not count, so ties fall back to the text. */
export function compareVersionsDesc(a: CatalogVersion, b: CatalogVersion): number {
  return semver.compare(b.version, a.version) || (a.version < b.version ? 1 : a.version > b.version ? -1 : 0);
}

/**
 * Tags from the query: repeatable (`tags=a&tags=b`) and comma forms (`tags=a,b`) mean the same.
 * Empty entries are dropped, so `tags=` filters nothing.
 */
export function splitTags(raw: string[]): string[] {
  return raw.flatMap((entry) => entry.split(',')).filter((tag) => tag !== '');
}

/** Applications that carry every given tag, in catalog order (name, then id). */
export function filterApps(catalog: Catalog, tags: string[]): CatalogApp[] {
  return catalog.apps.filter((app) => tags.every((tag) => app.tags.includes(tag)));
}

export function findApp(catalog: Catalog, id: string): CatalogApp | undefined {
  return catalog.apps.find((app) => app.id === id);
}

/** The exact version text (build metadata included), or undefined. */
export function findVersion(app: CatalogApp, version: string): CatalogVersion | undefined {
  return app.versions.find((v) => v.version === version);
}

/**
 * `latestVersion` answers by list: a loaded catalog does not change, and parsing every version's
 * SemVer on each request that asks for `latest` is most of what such a request costs the catalog.
 */
const latestOf = new WeakMap<CatalogVersion[], CatalogVersion | null>();

/** The highest release; an application with only pre-releases gets the highest of those. */
export function latestVersion(app: CatalogApp): CatalogVersion | undefined {
  let latest = latestOf.get(app.versions);
  if (latest === undefined) {
    latest = app.versions.find((v) => semver.prerelease(v.version) === null) ?? app.versions[0] ?? null;
    latestOf.set(app.versions, latest);
  }
  return latest ?? undefined;
}

/**
 * Whether `profile` applies to the request's application and version. `*` on either side matches
 * anything: an attachment `*` matches every application, and a request `*` matches every attachment.
 */
export function profileApplies(profile: CatalogProfile, appId: string, version: string): boolean {
  return profile.attachments.some(
    (attachment) =>
      (appId === '*' || attachment.id === '*' || attachment.id === appId) &&
      (version === '*' || attachment.versions.some((v) => v === '*' || v === version)),
  );
}

/** Outcome of resolving the (application, version) of a profile lookup. */
export type ProfileScope =
  { ok: true; profiles: CatalogProfile[] } | { ok: false; missing: 'application' | 'version' };

/**
 * Profiles for `(appId, version)`, either may be `*`. A named application that does not exist, or a
 * named version that the named application does not have, is reported as missing (404).
 */
export function profilesFor(catalog: Catalog, appId: string, version: string): ProfileScope {
  if (appId !== '*') {
    const app = findApp(catalog, appId);
    if (!app) return { ok: false, missing: 'application' };
    if (version !== '*' && !findVersion(app, version)) return { ok: false, missing: 'version' };
  }
  return { ok: true, profiles: catalog.profiles.filter((p) => profileApplies(p, appId, version)) };
}

/** What a launch names, as the fields of the POST /stream body do; `version` may be `latest`. */
export interface LaunchChoice {
  id: string;
  version: string;
  profile: string;
}

/** A 422 `not_found` at the body field that names what the catalog lacks. */
function notInCatalog(field: keyof LaunchChoice, msg: string): ValidationFailure {
  return new ValidationFailure([{ loc: ['body', field], msg, type: 'not_found' }]);
}

/**
 * The application, version and profile that a launch names, and how to start them. Throws
 * ValidationFailure at the field for an application, version or profile that does not exist, and for a
 * profile that does not apply to that application and version.
 */
export function resolveLaunch(catalog: Catalog, choice: LaunchChoice): LaunchTarget {
  const app = findApp(catalog, choice.id);
  if (!app) throw notInCatalog('id', `No application has id "${choice.id}".`);
  const version = choice.version === 'latest' ? latestVersion(app) : findVersion(app, choice.version);
  if (!version) throw notInCatalog('version', `${app.name} has no version "${choice.version}".`);
  const profile = catalog.profiles.find((p) => p.id === choice.profile);
  if (!profile) throw notInCatalog('profile', `No profile has id "${choice.profile}".`);
  if (!profileApplies(profile, app.id, version.version)) {
    throw notInCatalog(
      'profile',
      `Profile "${profile.id}" does not apply to ${app.name} ${version.version}.`,
    );
  }
  return {
    app: { id: app.id, name: app.name },
    version: version.version,
    profile: { id: profile.id, name: profile.name, settings: profile.settings },
    ...(version.launch ? { launch: version.launch } : {}),
  };
}

/**
 * The arguments a session of `target` gets (CONTRACT §20): checked against its version's declaration, defaults
 * filled in; a version that declares none passes them as they are. Throws ValidationFailure at the argument.
 */
export function launchArguments(
  catalog: Catalog,
  target: LaunchTarget,
  given: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const app = findApp(catalog, target.app.id);
  const declared = app && findVersion(app, target.version)?.arguments;
  return checkDeclaredArguments(declared, given, `${target.app.name} ${target.version}`);
}

/** A launch kept warm: what to start, and how many of it (CONTRACT §16). */
export interface WarmTarget {
  target: LaunchTarget;
  count: number;
  /**
   * What it is started with: its version's declared defaults (CONTRACT §20), which a request that gives none is
   * filled with too, so that such a request still takes a warm application. None where nothing is declared.
   */
  arguments?: Record<string, unknown>;
}

/**
 * Every (application, version, profile) a profile with `warm: N` applies to, wildcards expanded over the
 * catalog, in catalog order (profiles, then applications, newest version first): the order they are filled.
 */
export function warmTargets(catalog: Catalog): WarmTarget[] {
  const targets: WarmTarget[] = [];
  for (const profile of catalog.profiles) {
    if (profile.settings.warm <= 0) continue;
    for (const app of catalog.apps) {
      for (const version of app.versions) {
        if (!profileApplies(profile, app.id, version.version)) continue;
        const target = resolveLaunch(catalog, { id: app.id, version: version.version, profile: profile.id });
        let defaults: Record<string, unknown>;
        try {
          defaults = launchArguments(catalog, target, {});
        } catch {
          continue; // a required argument without a default: nothing to start it with before someone asks
        }
        targets.push({ target, count: profile.settings.warm, arguments: defaults });
      }
    }
  }
  return targets;
}

/** How people read a launch: "USD Viewer 1.2.0". */
export function label(target: Pick<LaunchTarget, 'app' | 'version'>): string {
  return `${target.app.name} ${target.version}`;
}
