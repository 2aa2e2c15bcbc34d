/**
 * What the Tries say of a set of targets, in one line: "5 of 8 work, 2 failed, 1 untested". A failure and a
 * timeout both failed; a refusal is the service's answer to the launch (full, not allowed here), counted apart.
 */
import type { Profile } from '../../../lib/api-client';
import type { AvailabilityRow } from './get-availability';
import { readOutcome, type TryOutcome, type TryTarget } from './try-outcomes';

/** The targets of the cells that can be tried: every profile that applies to a row, row by row. */
export function applicableTargets(
  profiles: readonly Profile[],
  rows: readonly AvailabilityRow[],
): TryTarget[] {
  return rows.flatMap((row) =>
    profiles
      .filter((profile) => row.applies.includes(profile.id))
      .map((profile) => ({
        app: row.app,
        appName: row.appName,
        version: row.version,
        profile: profile.id,
        profileName: profile.name,
      })),
  );
}

/** How many targets' last Try showed a first frame, failed (or timed out), was refused, or none was made. */
export interface TrySummary {
  total: number;
  work: number;
  failed: number;
  refused: number;
  untested: number;
}

const verdict = (o: TryOutcome | undefined): keyof Omit<TrySummary, 'total'> => {
  if (o === undefined) return 'untested';
  if (o.kind === 'frame') return 'work';
  return o.kind === 'refused' ? 'refused' : 'failed';
};

/** The counts of `targets`, from their last outcomes in this browser. */
export function summarizeTries(
  targets: readonly TryTarget[],
  read: (t: TryTarget) => TryOutcome | undefined = readOutcome,
): TrySummary {
  const summary: TrySummary = { total: targets.length, work: 0, failed: 0, refused: 0, untested: 0 };
  for (const target of targets) summary[verdict(read(target))] += 1;
  return summary;
}

/** "5 of 8 work, 2 failed, 1 untested": the counts that are not zero, after how many work. */
export function summaryText(s: TrySummary): string {
  if (s.total === 0) return 'Nothing to try: no profile applies to the versions shown.';
  const rest = [
    s.failed > 0 && `${s.failed} failed`,
    s.refused > 0 && `${s.refused} refused`,
    s.untested > 0 && `${s.untested} untested`,
  ].filter((part): part is string => part !== false);
  return [`${s.work} of ${s.total} ${s.work === 1 ? 'works' : 'work'}`, ...rest].join(', ');
}
