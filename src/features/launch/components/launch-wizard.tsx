import { useNavigate, useSearchParams } from 'react-router-dom';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import Alert from '@mui/material/Alert';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import Step from '@mui/material/Step';
import StepLabel from '@mui/material/StepLabel';
import Stepper from '@mui/material/Stepper';
import Typography from '@mui/material/Typography';
import { ErrorAlert } from '../../../components/error-alert';
import { ReasonedButton } from '../../../components/reasoned-button';
import { isApiError } from '../../../lib/api-client';
import { keepLaunchFile } from '../../../lib/launch-file';
import { appQueries } from '../../../lib/queries/app-queries';
import { sessionQueries } from '../../../lib/queries/session-queries';
import { versionParam } from '../../../lib/versions';
import { launchSession, LaunchError } from '../api/launch-session';
import { launchQueries } from '../api/launch-queries';
import {
  argumentFields,
  argumentParam,
  argumentText,
  argumentValue,
  argumentValues,
} from '../utils/argument-values';
import type { LaunchField } from '../utils/launch-refusal';
import { preferredProfile } from '../utils/preferred-profile';
import { ArgumentFields } from './argument-fields';
import { AppField, ProfileField, VersionField } from './launch-fields';
import { LaunchFileField, launchFileProblem } from './launch-file-field';
import {
  appProblem,
  fieldMessage,
  fieldName,
  optionsMessage,
  reviewReason,
  versionProblem,
} from './launch-problems';
import { LaunchRefusalAlert } from './launch-refusal-alert';
import { LaunchReview } from './launch-review';

const steps = ['Application', 'Version', 'Profile', 'Options', 'Review'];
const OPTIONS_STEP = 3;
const REVIEW_STEP = 4;

/**
 * The wizard: application, version (default latest), profile (the only or default one unless chosen),
 * options, review, then POST /stream. `step=review` in the query (the catalog card's Launch) opens the review
 * as soon as the choice is complete and checked, so that a card's Launch and the review's Launch start a
 * session; a choice still to be made shows the form at that field instead.
 */
export function LaunchWizard() {
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const app = params.get('app') ?? '';
  const version = versionParam(params) || 'latest';
  const chosenProfile = params.get('profile');
  const reviewAsked = params.get('step') === 'review';

  const apps = useQuery(launchQueries.apps());
  const versions = useQuery({ ...launchQueries.versions(app), enabled: app !== '' });
  const resolved = version === 'latest' ? versions.data?.find((v) => v.latest)?.version : version;
  const appName = apps.data?.items.find((a) => a.id === app)?.name;
  const versionError = versionProblem(version, appName ?? app, versions.data);
  const profiles = useQuery({
    ...launchQueries.profiles(app, resolved ?? ''),
    // Not for a version known to be wrong: the service's answer would only repeat it, less clearly.
    enabled: Boolean(app && resolved) && !versionError && !versions.isError,
  });
  // Chosen by the person (or a link), else the only or default profile of the version, once known.
  const profile = chosenProfile ?? preferredProfile(profiles.data) ?? '';
  /** Leaves the review for the form, keeping what the launch said (unlike `set`, which clears it). */
  const leaveReview = () =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete('step');
        return next;
      },
      { replace: true },
    );
  // A file to open in the session: a File lives in memory only, never in the query.
  const [chosenFile, setChosenFile] = useState<File>();
  const opens = versions.data?.find((v) => v.version === resolved)?.opens;
  const fileToOpen = opens && !launchFileProblem(chosenFile, opens) ? chosenFile : undefined;
  const launch = useMutation({
    mutationFn: launchSession,
    // Ready (200) or waiting (202), the session's page takes it from here, starting from this answer.
    onSuccess: (session) => {
      if (fileToOpen) keepLaunchFile(session.id, fileToOpen);
      queryClient.setQueryData(sessionQueries.detail(session.id).queryKey, { session, ended: undefined });
      navigate(`/sessions/${session.id}`);
      // The app bar's count and the sessions page show it now, not at their next refresh; asked once the
      // navigation has begun (invalidated within it, the refetch held the page at 100% CPU in a test whose
      // first launch failed for want of a network).
      setTimeout(() => void queryClient.invalidateQueries({ queryKey: sessionQueries.list().queryKey }), 0);
    },
    onError: (error) => {
      leaveReview();
      // What the catalog no longer has may still be in the lists this page loaded: they are asked again.
      if (error instanceof LaunchError && error.field && !error.field.startsWith('arguments'))
        void queryClient.invalidateQueries({ queryKey: appQueries.detail(app).queryKey });
    },
  });

  /**
   * Changes the query; `null` removes a key, and so does '' unless `keepEmpty` (a field emptied on purpose).
   * A change of a field drops a link's `step=review`: the review opens when the person asks for it, not as
   * soon as the choice happens to be complete.
   */
  const set = (changes: Record<string, string | null>, keepEmpty = false) => {
    launch.reset();
    const next = new URLSearchParams(params);
    next.delete('step');
    for (const [k, v] of Object.entries(changes)) {
      if (v || (keepEmpty && v !== null)) next.set(k, v);
      else next.delete(k);
    }
    setParams(next, { replace: true });
  };
  // The version's declared arguments, or the USD stage where the deployment declares none.
  const declared = argumentFields(versions.data?.find((v) => v.version === resolved));
  const texts = Object.fromEntries(declared.map((d) => [d.name, argumentText(d, params)]));
  const labels = Object.fromEntries(declared.map((d) => [d.name, d.label]));
  // A deep link may name a profile that does not apply to its version: say so here, not after Launch.
  const unlisted =
    profile && profiles.isSuccess && !profiles.data.some((p) => p.id === profile)
      ? `Profile ${profile} does not apply to ${appName ?? app} ${resolved ?? version}; choose one that does.`
      : undefined;
  const errorFor = (field: LaunchField, value: string): string | undefined => {
    const launched = fieldMessage(launch.error, field, value);
    if (launched) return launched;
    if (field === 'app') return appProblem(app, versions.error);
    if (field === 'version') return versionError ?? fieldMessage(profiles.error, 'version', value);
    if (field === 'profile') return unlisted;
    const name = field.slice('arguments.'.length);
    const argument = declared.find((d) => d.name === name);
    return argument && argumentValue(argument, value).problem;
  };
  const argumentErrors = Object.fromEntries(
    declared.map((d) => [d.name, errorFor(`arguments.${d.name}`, texts[d.name] ?? '')]),
  );
  const errors = {
    app: errorFor('app', app),
    version: errorFor('version', version),
    profile: errorFor('profile', profile),
  };
  const formError =
    launch.error && !(launch.error instanceof LaunchError && launch.error.field) ? launch.error : undefined;
  const optionsError = optionsMessage(
    launch.error,
    declared.map((d) => d.name),
  );
  const listError = [apps.error, versions.error].find((e) => isApiError(e) && e.status === 403);
  const wrongArgument = declared.find((d) => argumentErrors[d.name]);
  const problem = (['app', 'version', 'profile'] as const).find((f) => errors[f]);
  // `isLoading`, not `isPending`: profiles not asked for (a version in error) are not on their way.
  const checking = Boolean(app) && (versions.isPending || (Boolean(resolved) && profiles.isLoading));
  const reviewBlocked = reviewReason({
    app,
    profile,
    checking,
    problem: problem
      ? fieldName(problem, labels)
      : wrongArgument && fieldName(`arguments.${wrongArgument.name}`, labels),
    missing: declared.find((d) => argumentValue(d, texts[d.name] ?? '').missing)?.label,
  });
  const reviewing = reviewAsked && !reviewBlocked;
  // A card's Launch waits for the lists rather than showing the form for a moment before the review.
  const preparing = reviewAsked && !reviewing && !problem && (checking || apps.isPending);
  // A version that declares no arguments has no Options step: skipped, and said why.
  const noOptions =
    versions.data?.some((v) => v.version === resolved) === true && declared.length === 0 && !opens;
  const active = reviewing ? REVIEW_STEP : !app ? 0 : !profile ? 2 : noOptions ? REVIEW_STEP : OPTIONS_STEP;
  // A step in error is marked so; a step is done only once the service confirmed it (never for a link's guess).
  const stepErrors = [errors.app, errors.version, errors.profile, wrongArgument ?? optionsError];
  const confirmed = [
    versions.isSuccess,
    versions.isSuccess && !versionError,
    profiles.isSuccess && !unlisted,
    true,
  ];
  const choice = {
    app,
    version,
    resolvedVersion: resolved,
    profile,
    arguments: argumentValues(declared, params),
  };

  return (
    <Stack spacing={3} sx={{ maxWidth: 720 }}>
      <Stepper activeStep={active} alternativeLabel aria-label="Launch steps" sx={{ overflowX: 'auto' }}>
        {steps.map((label, i) => {
          const error = Boolean(stepErrors[i]);
          const skipped = i === OPTIONS_STEP && noOptions;
          return (
            <Step
              key={label}
              completed={i < active && !error && !skipped && confirmed[i] !== false}
              disabled={skipped}
            >
              <StepLabel
                error={error}
                optional={
                  skipped ? (
                    <Typography variant="caption" color="text.secondary">
                      {appName ?? app} has none
                    </Typography>
                  ) : undefined
                }
              >
                {label}
              </StepLabel>
            </Step>
          );
        })}
      </Stepper>
      {listError !== undefined && <ErrorAlert error={listError} />}
      {apps.isError && listError === undefined && (
        <ErrorAlert error={apps.error} what="The catalog" onRetry={() => void apps.refetch()} />
      )}
      {formError && <LaunchRefusalAlert error={formError} onRetry={() => launch.mutate(launch.variables!)} />}
      {preparing ? (
        <CircularProgress aria-label="Preparing the review" />
      ) : reviewing ? (
        <LaunchReview
          choice={choice}
          declared={declared}
          appName={appName}
          fileToOpen={fileToOpen}
          launching={launch.isPending}
          onBack={() => set({ step: null })}
          onLaunch={() => launch.mutate(choice)}
        />
      ) : (
        <Stack
          component="form"
          aria-label="Launch options"
          spacing={2}
          onSubmit={(e) => {
            e.preventDefault();
            if (!reviewBlocked) set({ step: 'review' });
          }}
        >
          <AppField
            value={app}
            apps={apps.data?.items ?? []}
            error={errors.app}
            // Another application asks other arguments: the texts of the last one go with it.
            onChange={(id) =>
              set({
                app: id,
                version: '',
                profile: '',
                ...Object.fromEntries(declared.map((d) => [argumentParam(d.name), null])),
              })
            }
          />
          <VersionField
            value={version}
            versions={versions.data ?? []}
            error={errors.version}
            onChange={(v) => set({ version: v === 'latest' ? '' : v, profile: '' })}
          />
          <ProfileField
            value={profile}
            profiles={profiles.data ?? []}
            error={errors.profile}
            onChange={(p) => set({ profile: p })}
          />
          {profiles.isSuccess && profiles.data.length === 0 && (
            <Alert severity="warning">No profile applies to this version.</Alert>
          )}
          {optionsError && <Alert severity="error">{optionsError}</Alert>}
          <ArgumentFields
            declared={declared}
            texts={texts}
            errors={argumentErrors}
            // Emptied, a field stays empty rather than showing its default again.
            onChange={(name, text) => set({ [argumentParam(name)]: text }, true)}
          />
          {opens && <LaunchFileField opens={opens} file={chosenFile} onChange={setChosenFile} />}
          <ReasonedButton type="submit" variant="contained" reason={reviewBlocked}>
            Review
          </ReasonedButton>
        </Stack>
      )}
    </Stack>
  );
}
