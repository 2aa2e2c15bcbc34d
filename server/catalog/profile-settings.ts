/**
 * A profile's `settings` in the catalog: sizes, timeouts, viewers, codec, sound (CONTRACT §19), GPUs, the
 * sandbox's limits (CONTRACT §17), where its Slurm jobs go (CONTRACT §18) and the size of a session's folder of
 * files (protocol/files.ts); every key optional.
 */
import type { Checker, Path } from './catalog-checker.ts';
import { DEFAULT_SETTINGS, type ProfileSettings, type SlurmPlacement } from './model.ts';
import { MAX_FILES_MB } from '../../protocol/files.ts';

export function checkSettings(c: Checker, value: unknown, path: Path): ProfileSettings {
  if (value === undefined) return { ...DEFAULT_SETTINGS };
  const keys = ['width', 'height', 'fps', 'max_width', 'max_height', 'startup_timeout_s', 'max_lifetime_min'];
  const obj = c.object(value, path, [
    ...keys,
    ...[
      'lifetime_min',
      'idle_timeout_min',
      'max_viewers',
      'warm',
      'codec',
      'audio',
      'gpus',
      'limits',
      'slurm',
      'files_mb',
    ],
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
    audio: (obj.audio as boolean | undefined) ?? d.audio,
    gpus: c.integer(obj, 'gpus', path, 0, 16, d.gpus),
    limits: checkLimits(c, obj.limits, [...path, 'limits']),
    filesMb: c.integer(obj, 'files_mb', path, 1, MAX_FILES_MB, d.filesMb),
  };
  if (obj.lifetime_min !== undefined) {
    const maxMin = settings.maxLifetimeMs / 60_000;
    settings.lifetimeMs = c.integer(obj, 'lifetime_min', path, 1, maxMin, maxMin) * 60_000;
  }
  if (obj.codec !== undefined) {
    if (obj.codec !== 'vp8' && obj.codec !== 'h264')
      c.fail([...path, 'codec'], '"codec" must be vp8 or h264');
    settings.codec = obj.codec;
  }
  if (obj.audio !== undefined && typeof obj.audio !== 'boolean')
    c.fail([...path, 'audio'], '"audio" must be true or false');
  if (obj.slurm !== undefined) settings.slurm = checkSlurm(c, obj.slurm, [...path, 'slurm']);
  return settings;
}

/** `slurm: {partition, account, qos, constraint}`, each optional: one Slurm word each (CONTRACT §18). */
function checkSlurm(c: Checker, value: unknown, path: Path): SlurmPlacement {
  const keys = ['partition', 'account', 'qos', 'constraint'] as const;
  const obj = c.object(value, path, [...keys]);
  const placement: SlurmPlacement = {};
  for (const key of keys) {
    const word = obj[key];
    if (word === undefined) continue;
    // A constraint may combine features (gpu&a100, a|b); nothing may start a flag or leave the word.
    if (typeof word !== 'string' || !/^[\w.:&|,[\]*-]{1,128}$/.test(word) || word.startsWith('-'))
      c.fail(
        [...path, key],
        `"${key}" must be one Slurm name (letters, digits, _ . - and, for a constraint, & | , : [ ] *)`,
      );
    placement[key] = word;
  }
  return placement;
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
