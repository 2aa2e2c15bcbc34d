/** SemVer ordering of version lists, which real deployments return in any order (CONTRACT 7 and 13). */
import semver from 'semver';
import type { ArgumentDeclaration } from './api-client';

/** A version as the portal shows it. */
export interface VersionInfo {
  version: string;
  /** True when the text is not valid SemVer (kept, sorted last). */
  invalid: boolean;
  prerelease: boolean;
  latest: boolean;
  /**
   * The launch arguments the version declares (CONTRACT §20); `[]` when it takes none, absent where the
   * deployment declares nothing (then the portal offers the USD stage URI, as real deployments take it).
   */
  arguments?: ArgumentDeclaration[];
  /**
   * The file extensions the version's program opens (an extension of this service: `opens`), lower case and
   * without their dot; absent where the service says nothing.
   */
  opens?: string[];
}

/** Sorts versions newest first by SemVer precedence and marks `latest` and pre-releases. */
export function sortVersions(versions: readonly string[]): VersionInfo[] {
  const valid = versions.filter((v) => semver.valid(v) !== null);
  const invalid = versions.filter((v) => semver.valid(v) === null);
  const sorted = [...valid].sort((a, b) => semver.rcompare(a, b) || a.localeCompare(b));
  const latest = latestVersion(valid);
  return [
    ...sorted.map((version) => ({
      version,
      invalid: false,
      prerelease: semver.prerelease(version) !== null,
      latest: version === latest,
    })),
    ...invalid.map((version) => ({ version, invalid: true, prerelease: false, latest: false })),
  ];
}

/** The highest version without a pre-release part; if there are only pre-releases, the highest of those. */
export function latestVersion(versions: readonly string[]): string | undefined {
  const valid = versions.filter((v) => semver.valid(v) !== null).sort((a, b) => semver.rcompare(a, b));
  return valid.find((v) => semver.prerelease(v) === null) ?? valid[0];
}

/**
 * The `version` of a link's query. A `+` written as is in a query means a space, so a hand-made link to
 * `1.0.0+build.5` arrives as `1.0.0 build.5`; no version has a space, so each one was a `+`. Links the portal
 * makes encode it (`%2B`) and need no repair.
 */
export function versionParam(params: URLSearchParams): string | null {
  return params.get('version')?.replaceAll(' ', '+') ?? null;
}

/**
 * Whether a version takes a USD stage: it declares `usd_stage_uri`, or declares nothing at all (deployments
 * without declarations, such as Omniverse Kit App Streaming, take one).
 */
export function takesStage(version: Pick<VersionInfo, 'arguments'> | undefined): boolean {
  return version?.arguments === undefined || version.arguments.some((a) => a.name === 'usd_stage_uri');
}

/** `opens` as the service wrote it (`.OBJ`, `obj`), as the portal compares it: lower case, no dot; else absent. */
export function readOpens(raw: unknown): string[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const opens = raw
    .filter((e): e is string => typeof e === 'string')
    .map((e) => e.trim().replace(/^\./, '').toLowerCase())
    .filter((e) => e !== '');
  return opens.length > 0 ? opens : undefined;
}

/** Whether a file of this name is one `opens` lists (by its ending, so that `tar.gz` works too). */
export function opensFile(name: string, opens: readonly string[] | undefined): boolean {
  const lower = name.toLowerCase();
  return (opens ?? []).some((ext) => lower.endsWith(`.${ext}`) && lower.length > ext.length + 1);
}
