/**
 * The catalog once loaded and checked: applications with their versions, and profiles with the
 * (application, version) pairs they attach to.
 */
import type { LaunchSpec, ProfileSettings } from '../sessions/types.ts';

export interface CatalogVersion {
  /** The text exactly as written in the catalog (build metadata kept). */
  version: string;
  description: string;
  launch?: LaunchSpec;
}

export interface CatalogApp {
  id: string;
  name: string;
  description: string;
  tags: string[];
  /** Newest first by SemVer precedence. */
  versions: CatalogVersion[];
}

/** One `applications` entry of a profile; `*` matches any application or version. */
export interface ProfileAttachment {
  id: string;
  versions: string[];
}

export interface CatalogProfile {
  id: string;
  name: string;
  description: string;
  settings: ProfileSettings;
  attachments: ProfileAttachment[];
}

export interface Catalog {
  /** Ordered by name, then id. */
  apps: CatalogApp[];
  /** Ordered by name, then id. */
  profiles: CatalogProfile[];
}

/** Settings of a profile that leaves them out: modest, since one machine may run several sessions. */
export const DEFAULT_SETTINGS: ProfileSettings = {
  width: 1280,
  height: 720,
  fps: 30,
  maxWidth: 1920,
  maxHeight: 1080,
  startupTimeoutMs: 30_000,
  maxLifetimeMs: 180 * 60_000,
  idleTimeoutMs: 10 * 60_000,
};

export const IDENTIFIER = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** SemVer 2.0.0, the regular expression of semver.org (also the SemVer schema of api/openapi.yaml). */
export const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
