import type { ArgumentDeclaration } from './launch-arguments.ts';
import { DEFAULT_FILES_MB } from '../../protocol/files.ts';

/**
 * The catalog once loaded and checked: applications with their versions, and profiles with the
 * (application, version) pairs they attach to, and what a version launches.
 */

/** A program and its environment. */
export interface CommandSpec {
  /**
   * argv; `{signaling_port}`, `{media_port}`, `{host}`, `{session_id}` are replaced in each element, and
   * `{arg:NAME=DEFAULT}` by the session's argument NAME (a plain file-name-like word) or DEFAULT.
   */
  command: string[];
  env?: Record<string, string>;
  /**
   * Files of the catalog's own the program reads (catalog `files`, relative to the catalog file's folder):
   * its sandbox holds each, read-only, under the same name in its working directory (CONTRACT §17).
   */
  files?: { root: string; names: string[] };
  /** Catalog `network: true`: the program reaches the network (none by default; CONTRACT §17). */
  network?: boolean;
  /** Catalog `opengl: false`: its display offers no OpenGL, and saves the memory of an OpenGL driver. */
  opengl?: boolean;
  /**
   * Catalog `opens` (display programs only): the extensions, lower case without the dot, of a person's files the
   * program can open (display-opens.ts).
   */
  opens?: string[];
  /**
   * Catalog `open_command` (with `opens` only): the program and arguments that open a person's file, which goes
   * where `{file}` is; absent, `command` with the file appended.
   */
  openCommand?: string[];
}

/**
 * How a version is started. Absent: the sample streaming application (streamer/sample/main.ts). A command: an
 * application that streams itself over the WHEP transport. `display`: an X11 program, streamed by the
 * display host (streamer/display/) from a private display.
 */
export type LaunchSpec = CommandSpec | { display: CommandSpec };

/** A profile's runtime settings (catalog key `settings`, every field optional there). */
export interface ProfileSettings {
  width: number;
  height: number;
  fps: number;
  maxWidth: number;
  maxHeight: number;
  /** Not answering on the signaling port within this time fails the session. */
  startupTimeoutMs: number;
  /** A session older than this is ended; extending a session (POST /stream/{id}/extend) never passes it. */
  maxLifetimeMs: number;
  /**
   * How long a session runs before it ends unless extended (catalog `lifetime_min`); absent, the whole
   * `maxLifetimeMs`, and there is nothing to extend.
   */
  lifetimeMs?: number;
  /** A session without a connected viewer for this long is ended. */
  idleTimeoutMs: number;
  /** Viewers of one session at once (catalog `max_viewers`, default 8). */
  maxViewers: number;
  /** Applications kept started and ready for each version the profile applies to (CONTRACT §16, default 0). */
  warm: number;
  /**
   * The video codec of its sessions (catalog `codec`: vp8, the default, or h264). One encoder serves every
   * viewer of a session, so a viewer whose browser does not offer it is refused.
   */
  codec?: 'vp8' | 'h264';
  /** Whether its sessions stream sound (catalog `audio`, default true; CONTRACT §19). */
  audio: boolean;
  /** GPUs a session holds (catalog `gpus`, default 1); with none, its sandbox sees no GPU device. */
  gpus: number;
  /** What a session's program may use (catalog `limits: {cpus, memory_mb, pids}`, CONTRACT §17). */
  limits: { cpus: number; memoryMb: number; pids: number };
  /** Where its Slurm jobs go (catalog `slurm: {partition, account, qos, constraint}`, CONTRACT §18). */
  slurm?: SlurmPlacement;
  /**
   * The size of a session's folder of files, the program's `~/Files`, in MiB (catalog `files_mb`, default
   * DEFAULT_FILES_MB, at most MAX_FILES_MB; protocol/files.ts).
   */
  filesMb: number;
}

/** The Slurm options of a profile's jobs; each optional, Slurm's defaults otherwise. */
export interface SlurmPlacement {
  partition?: string;
  account?: string;
  qos?: string;
  constraint?: string;
}

export interface CatalogVersion {
  /** The text exactly as written in the catalog (build metadata kept). */
  version: string;
  description: string;
  launch?: LaunchSpec;
  /** Catalog `arguments`: what the version's launch arguments mean (CONTRACT §20); absent: undeclared. */
  arguments?: ArgumentDeclaration[];
}

export interface CatalogApp {
  id: string;
  name: string;
  description: string;
  tags: string[];
  /** Catalog `icon`: an http(s) URL, or an image file's path relative to the catalog file's folder. */
  icon?: string;
  /** Catalog `picture`: the application running, an http(s) URL or an image file's path as `icon` is. */
  picture?: string;
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

/** What the catalog resolves an (application, version, profile) to: who they are, and how to start them. */
export interface LaunchTarget {
  app: { id: string; name: string };
  /** The version's text, `latest` resolved. */
  version: string;
  profile: { id: string; name: string; settings: ProfileSettings };
  launch?: LaunchSpec;
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
  maxViewers: 8,
  warm: 0,
  audio: true,
  gpus: 1,
  limits: { cpus: 1, memoryMb: 4096, pids: 512 },
  filesMb: DEFAULT_FILES_MB,
};

export const IDENTIFIER = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** SemVer 2.0.0, the regular expression of semver.org (also the SemVer schema of api/openapi.yaml). */
export const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
